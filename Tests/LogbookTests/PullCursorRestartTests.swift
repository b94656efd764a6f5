import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A pull cursor says the peer's changes below it are merged here, which stays true only
// while this log holds what those merges wrote. When the log is restored from an older copy
// but `peers.json` is not, the cursor must restart from 0 (the next pull takes the peer's
// state), and the GC facts settled on those pulls must go with it.
@Suite struct PullCursorRestartTests {
    /// A peer (node 1, which node 2 is registered with) holding `records` durable changes.
    private func makePeer(records: Int, _ options: LogbookOptions) async throws -> (
        Logbook, PeerLedger
    ) {
        let peer = try Logbook.open(directory: "/peer", nodeId: 1, options: options)
        let ledger = try PeerLedger(for: peer)
        try ledger.register(2)
        for index in 0..<records {
            try await peer.insertOrUpdate("peer/\(index)", fields: [("v", 1)])
        }
        try peer.sync()
        return (peer, ledger)
    }

    /// `newRecords` 2: the follower's log after the restore ends before the position its
    /// cursor was saved at. 60: it has grown past it again, in another epoch.
    @Test(arguments: [2, 60])
    func aPullCursorWhoseMergesTheLogLostIsRestarted(newRecords: Int) async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(fileSystem: fileSystem)
        let (peer, peerLedger) = try await makePeer(records: 30, options)
        defer { try? peer.close() }

        var node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        try await node.insertOrUpdate("own/0", fields: [("v", 1)])
        try node.close()
        let olderCopy = try DirectoryCopy(of: "/node", on: fileSystem)

        // The node pulls everything, and settles the peer's acknowledgement on that pull.
        node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        var ledger = try PeerLedger(for: node)
        var historyFirst = ReplicationSession.Options()
        historyFirst.bootstrapsFromState = false
        let transport = SimulatedReplicationTransport(
            network: SimulatedNetwork(nodes: 2, seed: 7, dropProbability: 0), from: 1, to: 0,
            source: ReplicationSource(logbook: peer, ledger: peerLedger))
        let pulled = try await ReplicationSession(
            logbook: node, ledger: ledger, transport: transport, options: historyFirst
        ).catchUp()
        #expect(pulled.cursor == peer.durableOffset && pulled.restarts == 0)
        try ledger.acknowledge(.init(offset: 1, peerLogEnd: 1), byNode: 1)
        #expect(ledger.acknowledgement(of: 1)?.settledAcknowledged == 1)
        try ledger.makeDurable()
        try node.close()

        // The log comes back from the older copy; peers.json stays as it is.
        try olderCopy.restoreKeepingLedger(into: "/node", on: fileSystem)
        node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        defer { try? node.close() }
        for index in 0..<newRecords {
            try await node.insertOrUpdate("new/\(index)", fields: [("v", 2)])
        }
        try node.sync()
        ledger = try PeerLedger(for: node)
        let reason = try #require(ledger.reasonPullNotHeld(transport.peerName, by: node))
        #expect(
            reason.contains(newRecords == 60 ? "was not written in epoch" : "past this log's"),
            "\(reason)")

        // A dry run writes nothing: the lost pull blocks it instead.
        let ledgerBytes = fileSystem.contents(of: "/node/peers.json")
        var dryRun = TombstoneCollectionOptions()
        dryRun.dryRun = true
        let blocked = try node.collectTombstones(peers: ledger, dryRun)
        #expect(blocked.blockedBecause?.contains(transport.peerName) == true, "\(blocked)")
        #expect(fileSystem.contents(of: "/node/peers.json") == ledgerBytes)

        // GC forgets what was settled on the lost pull before it reads anything.
        _ = try node.collectTombstones(peers: ledger)
        #expect(ledger.acknowledgement(of: 1)?.settledAcknowledged == nil)
        #expect(ledger.cursor(for: transport.peerName) == 0)

        // The pull starts over and brings every change of the peer back.
        let again = try await ReplicationSession(
            logbook: node, ledger: ledger, transport: transport, options: historyFirst
        ).catchUp()
        #expect(again.cursor == peer.durableOffset, "\(again)")
        for index in 0..<30 { #expect(node.getRecord("peer/\(index)") != nil, "peer/\(index)") }
        #expect(ledger.reasonPullNotHeld(transport.peerName, by: node) == nil)
    }

    @Test func aSessionRestartsAPullWhoseMergesTheLogLost() async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(fileSystem: fileSystem)
        let (peer, peerLedger) = try await makePeer(records: 20, options)
        defer { try? peer.close() }
        var node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        try node.close()
        let olderCopy = try DirectoryCopy(of: "/node", on: fileSystem)
        node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        let transport = SimulatedReplicationTransport(
            network: SimulatedNetwork(nodes: 2, seed: 8, dropProbability: 0), from: 1, to: 0,
            source: ReplicationSource(logbook: peer, ledger: peerLedger))
        var ledger = try PeerLedger(for: node)
        _ = try await ReplicationSession(logbook: node, ledger: ledger, transport: transport)
            .catchUp()
        try ledger.makeDurable()
        try node.close()

        try olderCopy.restoreKeepingLedger(into: "/node", on: fileSystem)
        node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        defer { try? node.close() }
        ledger = try PeerLedger(for: node)
        #expect(ledger.cursor(for: transport.peerName) == peer.durableOffset)
        let report = try await ReplicationSession(
            logbook: node, ledger: ledger, transport: transport
        ).catchUp()
        #expect(report.restarts == 1 && report.restartReason != nil, "\(report)")
        #expect(report.bootstraps == 1, "a restarted pull takes the peer's state: \(report)")
        #expect(node.stateDigest() == peer.stateDigest())

        // The next session finds the cursor held and pulls as usual.
        try await peer.insertOrUpdate("peer/late", fields: [("v", 3)])
        try peer.sync()
        let next = try await ReplicationSession(
            logbook: node, ledger: ledger, transport: transport
        ).catchUp()
        #expect(next.restarts == 0 && next.bootstraps == 0 && next.accepted == 1, "\(next)")
    }
}
