import Logbook
import LogbookBench
import Testing

// What `logbook sync` prints: a restarted cursor (push or pull) gets a line of its own with
// the reason, and a round without one prints none.
@Suite struct SyncReportTests {
    @Test func aRestartedCursorIsPrintedWithItsReason() {
        var pushed = PushReport()
        pushed.restartReason = "offset 40 is past this log's durable end 12"
        var pulled = ReplicationReport()
        pulled.restarts = 1
        pulled.restartReason = "the record before offset 90 was not written in epoch 7 here"
        let report = SyncReport(
            directory: "d", hub: "http://hub", stream: "s", pushed: pushed, pulled: pulled,
            collection: nil, digest: "0")
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "push restarted; the state was pushed instead: "
                    + "offset 40 is past this log's durable end 12"))
        #expect(
            lines.contains(
                "pull cursor's merges not held by this log; pulled from the start: "
                    + "the record before offset 90 was not written in epoch 7 here"))
    }

    @Test func aRoundWithoutRestartsPrintsNoRestartLine() {
        let report = SyncReport(
            directory: "d", from: "http://peer", pulled: ReplicationReport(), digest: "0")
        #expect(!report.text.contains("not held by this log"))
        #expect(!report.text.contains("restarted"))
    }
}
