import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Progress in the peer ledger (cursors, echo ranges) is written with its file synced but its
// rename not: after a power cut it may read as an earlier write, until `makeDurable`. And a
// push never reads a pulled merge before the ledger knows it as an echo.
@Suite struct LedgerProgressTests {
    @Test func progressMayLagAfterAPowerCutUntilMadeDurable() throws {
        let fileSystem = SimulatedFileSystem()
        try fileSystem.createDirectory("/node")
        try fileSystem.syncDirectory("/")
        var random = SeededGenerator(seed: 1)
        let ledger = try PeerLedger(directory: "/node", fileSystem: fileSystem)
        try ledger.register(7)  // durable: a promise the GC relies on
        try ledger.setCursor(10, for: "http://peer", nodeId: 7)
        fileSystem.crash(using: &random)

        let afterCut = try PeerLedger(directory: "/node", fileSystem: fileSystem)
        #expect(afterCut.registeredPeers == [7], "the durable write survives whole")
        #expect(afterCut.cursor(for: "http://peer") == 0, "the progress write may be lost")

        try afterCut.setCursor(20, for: "http://peer", nodeId: 7)
        try afterCut.makeDurable()
        fileSystem.crash(using: &random)
        let afterSync = try PeerLedger(directory: "/node", fileSystem: fileSystem)
        #expect(afterSync.cursor(for: "http://peer") == 20)
    }

    @Test func aGCPassMakesTheCursorsItReadsDurable() throws {
        let fileSystem = SimulatedFileSystem()
        var random = SeededGenerator(seed: 2)
        let node = try Logbook.open(
            directory: "/node", nodeId: 1,
            options: smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem))
        let ledger = try PeerLedger(for: node)
        try ledger.register(7)
        try ledger.setCursor(10, for: "http://peer", nodeId: 7)
        // Whatever the pass decides (here: peer 7 has not acknowledged anything), what it
        // read must survive a power cut. Two things make it so today: `makeDurable` at the
        // pass's start, and the pass's own durable write of its GC state in the same
        // directory (removing only the first keeps this test green).
        _ = try node.collectTombstones(peers: ledger)
        fileSystem.crash(using: &random)
        let afterCut = try PeerLedger(directory: "/node", fileSystem: fileSystem)
        #expect(afterCut.cursor(for: "http://peer") == 10)
    }

    /// Pushes whatever `PushSession` sends, decoded.
    final class RecordingPushTransport: PushTransport, @unchecked Sendable {
        // @unchecked: `pushed` is guarded by `lock`.
        private let lock = NSLock()
        private var received: [Change<String, String, Value>] = []
        var peerName: String { "http://hub/streams/s" }
        var pushed: [Change<String, String, Value>] { lock.withLock { received } }

        func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt {
            let (changes, _) = try ShippedBatchReader.changes(in: batches, from: 0)
            lock.withLock { received += changes }
            return PushReceipt(accepted: changes.count)
        }
    }

    /// A merge of pulled changes made durable while a push runs, its echoes recorded only
    /// afterwards (as `ReplicationSession` does): with `holding`, the push stops where the
    /// merge began; without, it sends the hub's changes back.
    func pushDuringAPulledMerge(holding: Bool) async throws -> (
        duringMerge: [Change<String, String, Value>], afterwards: [Change<String, String, Value>]
    ) {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let node = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.fsyncEachAppend))
        defer { try? node.close() }
        let ledger = try PeerLedger(for: node)
        let transport = RecordingPushTransport()
        let push = PushSession(logbook: node, ledger: ledger, transport: transport)
        _ = try await node.insertOrUpdate("mine", fields: [("v", .int(1))])
        let hub = CRDT<String, String, Value>(nodeId: 9)
        let pulled = hub.insertOrUpdate("theirs", fields: [("v", .int(2)), ("w", .int(3))])

        let merge = {
            let merged = try await node.mergeLocated(pulled)
            try node.sync()
            _ = try await push.step()  // a push polling the log meanwhile
            let during = transport.pushed
            try ledger.setCursor(
                UInt64(pulled.count), for: transport.peerName, nodeId: 9,
                echoes: merged.offsets, logEnd: node.durableOffset)
            return during
        }
        let during =
            holding
            ? try await ledger.holdingPushes(
                to: transport.peerName, from: node.nextOffset, merge)
            : try await merge()
        _ = try await push.pushAll()
        return (during, Array(transport.pushed.dropFirst(during.count)))
    }

    @Test func aPushNeverReadsAPulledMergeBeforeItsEchoesAreKnown() async throws {
        let held = try await pushDuringAPulledMerge(holding: true)
        #expect(held.duringMerge.map(\.recordId) == ["mine"])
        #expect(held.afterwards.isEmpty, "the merged changes are echoes: never pushed")

        // The hold is what keeps them out: without it the push sends the hub its own changes.
        let unheld = try await pushDuringAPulledMerge(holding: false)
        #expect(unheld.duringMerge.map(\.recordId).filter { $0 == "theirs" }.count == 2)
    }
}
