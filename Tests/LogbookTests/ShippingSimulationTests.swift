import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Nodes replicating each other with the shipped ReplicationSession and ReplicationSource
// through a seeded network that partitions them, cuts transfers short, loses messages and
// loses answers after the peer acted: cut bodies are refused whole and leave the cursor
// where it was, and once the network heals every node ends with the same state digest.
@Suite struct ShippingSimulationTests {
    @Test(arguments: [31, 32, 33, 34] as [UInt64])
    func nodesConvergeThroughPartitionsAndCutTransfers(seed: UInt64) async throws {
        let cluster = try SimulatedCluster(count: 5, seed: seed, dropProbability: 0.15)
        defer { try? cluster.close() }
        let network = cluster.network
        for step in 0..<400 {
            if step % 100 == 20 { network.partition() }
            if step % 100 == 70 { network.heal() }
            let node = network.pick(0..<cluster.count)
            if network.chance(0.4) {
                let record = "entity/e\(network.pick(0..<25))"
                if network.chance(0.05) {
                    _ = try await cluster.nodes[node].deleteRecord(record)
                } else {
                    _ = try await cluster.nodes[node].insertOrUpdate(
                        record,
                        fields: [("name", .string("n\(node)-\(step)")), ("v", .int(Int64(step)))])
                }
                try cluster.nodes[node].sync()
            } else {
                let sender = network.pick(0..<cluster.count)
                if sender != node { try await cluster.pull(node, from: sender, faults: true) }
            }
        }
        try await cluster.settle(rounds: 2)
        let digests = Set(cluster.nodes.map { $0.stateDigest() })
        #expect(digests.count == 1, "seed \(seed): \(digests.count) different states")
        let faults = network.injected
        #expect(faults.cut > 0, "seed \(seed): no transfer was cut, the check proved nothing")
        #expect(faults.unreachable > 0, "seed \(seed): no partition got in the way")
        #expect(faults.answersLost > 0, "seed \(seed): no answer was lost")
        #expect(cluster.refused > 0, "seed \(seed)")
    }

    /// A node that joins after GC moved the others' history start takes their state in
    /// pages (three changes each) while messages are cut and lost, then follows their logs:
    /// the session's state path, which the copy of the protocol these simulations used to
    /// run never reached (it only counted "snapshot required"). It joins with
    /// `bootstrapsFromState` off, so its first fetch meets the history start (410) and the
    /// state is taken as "snapshot required"; the other simulations bootstrap.
    @Test(arguments: [41, 42, 43] as [UInt64])
    func aLateNodeTakesTheStateInPagesThroughLostMessages(seed: UInt64) async throws {
        let cluster = try SimulatedCluster(count: 3, seed: seed, dropProbability: 0.2)
        defer { try? cluster.close() }
        let network = cluster.network
        for node in 0..<2 { try cluster.ledgers[node].unregister(3) }  // not yet a peer
        cluster.bootstrapsFromState = false
        for step in 0..<120 {
            let node = network.pick(0..<2)
            let record = "entity/e\(network.pick(0..<15))"
            if network.chance(0.2) {
                _ = try await cluster.nodes[node].deleteRecord(record)
            } else {
                _ = try await cluster.nodes[node].insertOrUpdate(
                    record, fields: [("name", .string("n\(node)-\(step)"))])
            }
            try cluster.nodes[node].sync()
            if step % 10 == 9 {
                try await cluster.settle(rounds: 1, among: 0..<2)  // the first two exchange all
                cluster.now += 10
                for node in 0..<2 { try cluster.collect(node, retention: 0) }
            }
        }
        #expect(cluster.nodes[0].historyStart > 0, "seed \(seed): GC never moved the start")
        for node in 0..<2 { try cluster.ledgers[node].register(3) }
        // Below the history start a fetch is refused, so the cursor can only get past it
        // through a whole state (its last page merged, the cursor saved).
        let start = cluster.nodes[0].historyStart
        var steps = 0
        while cluster.ledgers[2].cursor(for: "sim://node1") < start {
            try await cluster.pull(2, from: 0, faults: true)
            steps += 1
            try #require(steps < 500, "seed \(seed): the late node never got a whole state")
        }
        try await cluster.settle(rounds: 2)
        let digests = Set(cluster.nodes.map { $0.stateDigest() })
        #expect(digests.count == 1, "seed \(seed): \(digests.count) different states")
        #expect(cluster.refused > 0, "seed \(seed): no message was lost on the way")
    }
}

// Following, not stepping: every node runs the shipped `ReplicationSession.run` (long
// polls, one fetch in flight, backoff after failures) against every other, concurrently,
// through a network that delays deliveries, cuts transfers and loses answers, while
// writers keep writing. Not reproducible step by step (real concurrency), but the end
// state is: once the writers stop, every node converges to one digest.
extension ShippingSimulationTests {
    @Test(arguments: [51, 52] as [UInt64])
    func followersConvergeThroughDelaysAndFaultsWhileNodesWrite(seed: UInt64) async throws {
        let cluster = try SimulatedCluster(count: 3, seed: seed, dropProbability: 0.1)
        defer { try? cluster.close() }
        let network = SimulatedNetwork(
            nodes: 3, seed: seed, dropProbability: 0.1, answerLossProbability: 0.05,
            delayMax: .milliseconds(3))
        let (nodes, ledgers) = (cluster.nodes, cluster.ledgers)
        let followers = Task {
            await withTaskGroup(of: Void.self) { group in
                for receiver in 0..<3 {
                    for sender in 0..<3 where sender != receiver {
                        var transport = SimulatedReplicationTransport(
                            network: network, from: receiver, to: sender,
                            source: ReplicationSource(
                                logbook: nodes[sender], ledger: ledgers[sender]))
                        transport.fetchBytes = 512..<4096
                        let session = ReplicationSession(
                            logbook: nodes[receiver], ledger: ledgers[receiver],
                            transport: transport)
                        group.addTask { await session.run(wait: .milliseconds(20)) }
                    }
                }
            }
        }
        for step in 0..<150 {
            let node = step % 3
            _ = try await nodes[node].insertOrUpdate(
                "entity/e\(step % 20)", fields: [("name", .string("n\(node)-\(step)"))])
            try nodes[node].sync()  // the cluster's logs are buffered: only durable ships
            if step % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        // Converged once every node holds the same digest and it stays so.
        var converged = false
        for _ in 0..<1200 where !converged {
            try await Task.sleep(for: .milliseconds(25))
            converged = Set(nodes.map { $0.stateDigest() }).count == 1
        }
        followers.cancel()
        await followers.value
        #expect(converged, "seed \(seed): the followers did not converge within 30 s")
        let faults = network.injected
        #expect(faults.cut + faults.answersLost > 0, "seed \(seed): no fault was injected")
    }
}
