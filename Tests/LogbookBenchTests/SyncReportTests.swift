import Logbook
import LogbookBench
import Testing

// What `logbook sync` prints: a restarted cursor (push or pull) gets a line of its own with
// the reason, and a round without one prints none; so do changes that came as the peer's state.
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

    @Test func changesThatCameAsThePeersStateSayWhy() {
        var pulled = ReplicationReport()
        pulled.received = 400
        pulled.bootstraps = 1
        pulled.snapshots = 3
        pulled.divergences = 1
        let report = SyncReport(directory: "d", from: "http://peer", pulled: pulled, digest: "0")
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "took the peer's state: a first pull from a peer starts from its state, not its "
                    + "history; the cursor was below the start of the peer's log (2 times); the "
                    + "peer no longer held this node's position (restored from an older copy?)"),
            "\(lines)")
        let batchesOnly = SyncReport(
            directory: "d", from: "http://peer", pulled: ReplicationReport(), digest: "0")
        #expect(!batchesOnly.text.contains("state"))
    }

    @Test func aRoundWithoutRestartsPrintsNoRestartLine() {
        let report = SyncReport(
            directory: "d", from: "http://peer", pulled: ReplicationReport(), digest: "0")
        #expect(!report.text.contains("not held by this log"))
        #expect(!report.text.contains("restarted"))
    }

    @Test func aRestartReasonFromTheLedgerPrintsEscaped() {
        var pushed = PushReport()
        pushed.restartReason = "peers.json said \u{1B}[2J\nforged"
        let report = SyncReport(
            directory: "d", hub: "http://hub", stream: "s", pushed: pushed,
            pulled: ReplicationReport(), collection: nil, digest: "0")
        #expect(report.text.contains(#"said \u{1B}[2J\u{A}forged"#), "\(report.text)")
        #expect(!report.text.unicodeScalars.contains("\u{1B}"))
    }
}
