import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// A hub's tombstone GC trusts the settled pull cursor a node acknowledges: the node holds
// every change of the hub below it. A node never says more than it acknowledges having
// merged, whatever its `peers.json` says.
@Suite struct SettledAcknowledgementTests {
    /// A hub that only hears acknowledgements.
    final class ListeningHub: ReplicationTransport, @unchecked Sendable {
        // @unchecked: `heard` is guarded by `lock`.
        private let lock = NSLock()
        private var heard: [ReplicationAcknowledgement] = []
        var acknowledgements: [ReplicationAcknowledgement] { lock.withLock { heard } }
        var peerName: String { "http://hub/streams/s" }

        func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
            async throws -> BatchAnswer
        {
            throw CancellationError()
        }
        func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage {
            throw CancellationError()
        }
        func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws {
            lock.withLock { heard.append(acknowledgement) }
        }
    }

    @Test(arguments: [UInt64(3), 1_000])
    func theSettledCursorNeverPassesTheAcknowledgedOffset(settled: UInt64) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let node = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        defer { try? node.close() }
        let peer = "http://hub/streams/s"
        let entries = """
            {"\(peer)":{"cursor":5,"pullSettled":\(settled),"updated":1}}
            """
        try Data(entries.utf8).write(to: URL(fileURLWithPath: directory.appending("peers.json")))
        let ledger = try PeerLedger(for: node)
        #expect(ledger.cursor(for: peer) == 5 && ledger.pullSettled(for: peer) == settled)
        let hub = ListeningHub()
        var options = ReplicationSession.Options()
        options.remembersEchoes = true
        let session = ReplicationSession(
            logbook: node, ledger: ledger, transport: hub, options: options)
        try await session.acknowledgeCursor()
        let heard = try #require(hub.acknowledgements.last)
        #expect(heard.offset == 5)
        #expect(heard.settled == min(settled, 5))
    }
}
