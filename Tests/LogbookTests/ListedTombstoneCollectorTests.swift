import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// The node's side of GC through a hub, beyond what the simulation reaches: a list that breaks
// its own promises is refused whole and changes nothing; a node with a mesh peer does not
// collect through a hub; a node that pushes to a hub does not collect by the mesh rule.
@Suite struct ListedTombstoneCollectorTests {
    let directory = TemporaryDirectory()

    func deletedRecord() async throws -> (Logbook, PeerLedger) {
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        _ = try await logbook.insertOrUpdate("r", fields: [("v", .int(1))])
        _ = try await logbook.deleteRecord("r")
        try logbook.sync()
        return (logbook, try PeerLedger(directory: directory.path))
    }

    @Test(arguments: [
        CollectableTombstones(
            entries: [.init(recordId: "r", version: 9)], listedBelow: 5, collectableBelow: 5,
            collectedBelow: 0),
        CollectableTombstones(entries: [], listedBelow: 6, collectableBelow: 5, collectedBelow: 0),
        CollectableTombstones(entries: [], listedBelow: 5, collectableBelow: 5, collectedBelow: 6),
    ])
    func aListBreakingItsPromisesIsRefusedWhole(listed: CollectableTombstones) async throws {
        defer { directory.remove() }
        let (logbook, ledger) = try await deletedRecord()
        defer { try? logbook.close() }
        #expect(throws: LogbookError.self) {
            try logbook.collectTombstones(
                listed: listed, hub: "http://hub/streams/s", peers: ledger)
        }
        #expect(logbook.tombstoneCount() == 1)
        #expect(logbook.listedCollectedBelow(peer: "http://hub/streams/s") == 0)
    }

    @Test func aMeshPeerBlocksGCThroughAHub() async throws {
        defer { directory.remove() }
        let (logbook, ledger) = try await deletedRecord()
        defer { try? logbook.close() }
        try ledger.register(2)
        let listed = CollectableTombstones(
            entries: [.init(recordId: "r", version: 3)], listedBelow: 5, collectableBelow: 5,
            collectedBelow: 0)
        let report = try logbook.collectTombstones(
            listed: listed, hub: "http://hub/streams/s", peers: ledger)
        #expect(report.blockedBecause?.contains("node 2 is a registered mesh peer") == true)
        #expect(report.collected == 0 && logbook.tombstoneCount() == 1)
        #expect(logbook.listedCollectedBelow(peer: "http://hub/streams/s") == 0)
        // Without the peer the same list is collected and the record fenced.
        try ledger.unregister(2)
        let collected = try logbook.collectTombstones(
            listed: listed, hub: "http://hub/streams/s", peers: ledger)
        #expect(collected.collected == 1 && logbook.tombstoneCount() == 0)
        #expect(logbook.isFenced("r"))
        #expect(logbook.listedCollectedBelow(peer: "http://hub/streams/s") == 5)
        // The fence lifts once the hub says every node collected past the round.
        let lifted = try logbook.collectTombstones(
            listed: CollectableTombstones(
                entries: [], listedBelow: 5, collectableBelow: 5, collectedBelow: 5),
            hub: "http://hub/streams/s", peers: ledger)
        #expect(lifted.unfenced == 1 && !logbook.isFenced("r"))
    }

    @Test func aNodeThatPushesToAHubDoesNotCollectByTheMeshRule() async throws {
        defer { directory.remove() }
        let (logbook, ledger) = try await deletedRecord()
        defer { try? logbook.close() }
        try ledger.setPushCursor(logbook.durableOffset, for: "http://hub/streams/s")
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0
        let report = try logbook.collectTombstones(peers: ledger, options)
        #expect(report.blockedBecause?.contains("syncs through the hub") == true)
        #expect(logbook.tombstoneCount() == 1)
    }
}
