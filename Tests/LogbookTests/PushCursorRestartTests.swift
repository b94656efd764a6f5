import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A push cursor names a position in this node's own log. When the log is restored from an
// older copy but `peers.json` is not (or comes from elsewhere), the cursor names records
// this log no longer holds; the changes written since at those offsets must still reach the
// hub, so the push sends the state and replaces the cursor.
@Suite struct PushCursorRestartTests {
    private typealias Transport = LedgerProgressTests.RecordingPushTransport

    /// `newRecords` 3: the log after the restore ends before the cursor. 40: it has grown
    /// past the cursor again, in another epoch.
    @Test(arguments: [3, 40])
    func aPushCursorFromAnotherCopyOfTheLogIsRestarted(newRecords: Int) async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(fileSystem: fileSystem)
        var node = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        for index in 0..<5 { try await node.insertOrUpdate("old/\(index)", fields: [("v", 1)]) }
        try node.close()
        let olderCopy = try DirectoryCopy(of: "/node", on: fileSystem)

        node = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        for index in 5..<25 { try await node.insertOrUpdate("old/\(index)", fields: [("v", 1)]) }
        try node.sync()
        var ledger = try PeerLedger(for: node)
        let hub = Transport()
        _ = try await PushSession(logbook: node, ledger: ledger, transport: hub).pushAll()
        let cursor = ledger.pushCursor(for: hub.peerName)
        #expect(cursor == node.durableOffset && ledger.pushEpoch(for: hub.peerName) != nil)
        try ledger.makeDurable()
        try node.close()

        // The log comes back from the older copy; peers.json stays as it is.
        try olderCopy.restoreKeepingLedger(into: "/node", on: fileSystem)
        node = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        defer { try? node.close() }
        #expect(node.durableOffset < cursor)
        for index in 0..<newRecords {
            try await node.insertOrUpdate("new/\(index)", fields: [("v", 2)])
        }
        try node.sync()
        #expect((node.durableOffset > cursor) == (newRecords == 40))

        ledger = try PeerLedger(for: node)
        let push = PushSession(logbook: node, ledger: ledger, transport: hub)
        #expect(push.positionNotHeld(cursor) != nil)
        let report = try await push.pushAll()
        #expect(report.restarts == 1 && report.statePushes == 1, "\(report)")
        let reason = try #require(report.restartReason)
        #expect(
            reason.contains(newRecords == 40 ? "was not written in epoch" : "past this log's"),
            "\(reason)")
        let pushedIds = Set(hub.pushed.map(\.recordId))
        for index in 0..<newRecords { #expect(pushedIds.contains("new/\(index)")) }
        #expect(ledger.pushCursor(for: hub.peerName) == node.durableOffset)
        #expect(push.positionNotHeld(node.durableOffset) == nil)

        // From there on it pushes the log as usual.
        try await node.insertOrUpdate("after", fields: [("v", 3)])
        try node.sync()
        let next = try await push.pushAll()
        #expect(next.restarts == 0 && next.statePushes == 0 && next.sent == 1, "\(next)")
    }
    /// A peer that lost what it had (a hub restored from an older copy): the request to
    /// restart survives a reopen, the settled pulls that stood on the lost pushes are
    /// forgotten, and the next push sends the state and clears it.
    @Test func aPushRestartAskedForIsDurableAndForgetsSettledPulls() async throws {
        let fileSystem = SimulatedFileSystem()
        let node = try Logbook.open(
            directory: "/node", nodeId: 1, options: smallLogOptions(fileSystem: fileSystem))
        defer { try? node.close() }
        for index in 0..<5 { try await node.insertOrUpdate("r\(index)", fields: [("v", 1)]) }
        try node.sync()
        let hub = Transport()
        var ledger = try PeerLedger(for: node)
        _ = try await PushSession(logbook: node, ledger: ledger, transport: hub).pushAll()
        try ledger.setCursor(7, for: hub.peerName, nodeId: nil, logEnd: node.durableOffset)
        #expect(ledger.pullSettled(for: hub.peerName) == 7)

        try ledger.requirePushRestart(for: hub.peerName, reason: "the hub lost it")
        ledger = try PeerLedger(for: node)
        #expect(ledger.pushRestartReason(for: hub.peerName) == "the hub lost it")
        #expect(ledger.pullSettled(for: hub.peerName) == nil)
        let before = hub.pushed.count
        let report = try await PushSession(logbook: node, ledger: ledger, transport: hub)
            .pushAll()
        #expect(report.restarts == 1 && report.restartReason == "the hub lost it")
        #expect(hub.pushed.count - before == 5, "the state: five records of one field")
        #expect(ledger.pushRestartReason(for: hub.peerName) == nil)
        // A peer this node never pushed to is left alone.
        try ledger.requirePushRestart(for: "http://elsewhere", reason: "x")
        #expect(ledger.pushRestartReason(for: "http://elsewhere") == nil)
    }
}
