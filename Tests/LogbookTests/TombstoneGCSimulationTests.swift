import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Tombstone GC under any order of deletes, re-inserts, syncs and GC runs: several nodes write
// a small set of records (so deletes, concurrent updates and re-inserts of the same ids are
// frequent), pull each other through a seeded network that partitions them and cuts
// transfers, and run GC at random moments. After the network heals and everyone has pulled
// everyone: every node's state digest is the same, no record holds a value written before
// its latest deletion (nothing came back), and GC has collected every tombstone and lifted
// every fence (it does not just refuse to work). The same run with crdt-lite's unsafe rule
// (collect whenever, no peers consulted) must fail those checks for some seed, or the checks
// prove nothing.
@Suite struct TombstoneGCSimulationTests {
    /// Ten seeds by default; `LOGBOOK_GC_SEEDS=FIRST-LAST` runs others (the slow tier uses
    /// hundreds, see docs/TESTING.md).
    static let seeds: [UInt64] = {
        let range = ProcessInfo.processInfo.environment["LOGBOOK_GC_SEEDS"]?.split(separator: "-")
            .compactMap { UInt64($0) }
        guard let range, range.count == 2, range[0] <= range[1] else { return Array(101...110) }
        return Array(range[0]...range[1])
    }()

    struct Outcome {
        var digests: Set<StateDigest>
        /// "node N: record r holds v=w, written before its deletion at step d".
        var resurrections: [String]
        var collected = 0
        var reinserts = 0
        var tombstonesLeft = 0
        var fencedLeft = 0
        var snapshotsRequired = 0
    }

    func simulate(seed: UInt64, gcConsultsPeers: Bool, steps: Int = 500) async throws -> Outcome {
        let cluster = try SimulatedCluster(count: 4, seed: seed, gcConsultsPeers: gcConsultsPeers)
        defer { try? cluster.close() }
        let retention = 5.0
        var workload = GCWorkload()
        var outcome = Outcome(digests: [], resurrections: [])
        for step in 1...steps {
            cluster.now += 1
            if step % 100 == 20 { cluster.network.partition() }
            if step % 100 == 70 { cluster.network.heal() }
            let node = cluster.network.pick(0..<cluster.count)
            let roll = cluster.network.pick(0..<100)
            let record = "r\(cluster.network.pick(0..<10))"
            switch roll {
            case GCWorkload.writeRolls:
                try await workload.write(
                    roll: roll, record: record, on: cluster.nodes[node], index: node, step: step)
            case 40..<85:
                let sender = cluster.network.pick(0..<cluster.count)
                // A partition is the transport's to apply: the pull fails, counted.
                if sender != node { try await cluster.pull(node, from: sender, faults: true) }
            default:
                outcome.collected += try cluster.collect(node, retention: retention).collected
            }
            try cluster.nodes[node].sync()
        }
        try await cluster.settle(rounds: 8, retention: retention)
        outcome.digests = Set(cluster.nodes.map { $0.stateDigest() })
        for (index, node) in cluster.nodes.enumerated() {
            outcome.tombstonesLeft += node.tombstoneCount()
            outcome.fencedLeft += node.fencedRecordCount
            outcome.resurrections += workload.resurrections(
                in: node.records(), of: "node \(index + 1)")
        }
        outcome.reinserts = workload.reinserts
        outcome.snapshotsRequired = cluster.snapshotsTaken
        return outcome
    }

    @Test(arguments: seeds)
    func nodesConvergeAndNothingComesBack(seed: UInt64) async throws {
        let outcome = try await simulate(seed: seed, gcConsultsPeers: true)
        #expect(
            outcome.digests.count == 1, "seed \(seed): \(outcome.digests.count) different states")
        #expect(outcome.resurrections.isEmpty, "seed \(seed): \(outcome.resurrections)")
        #expect(
            outcome.snapshotsRequired == 0,
            "seed \(seed): a registered peer fell below a history start")
        // GC did its work: it collected during the run, records were re-inserted after a
        // deletion, and once everyone had synced nothing was left held or fenced.
        #expect(outcome.collected > 0, "seed \(seed): GC never collected anything")
        #expect(outcome.reinserts > 0, "seed \(seed): no record was re-inserted")
        #expect(
            outcome.tombstonesLeft == 0, "seed \(seed): \(outcome.tombstonesLeft) tombstones left")
        #expect(outcome.fencedLeft == 0, "seed \(seed): \(outcome.fencedLeft) records still fenced")
    }

    @Test func theUnsafeRuleFailsTheSameChecks() async throws {
        var failing: [UInt64] = []
        for seed in Self.seeds {
            let outcome = try await simulate(seed: seed, gcConsultsPeers: false)
            if outcome.digests.count > 1 || !outcome.resurrections.isEmpty { failing.append(seed) }
        }
        #expect(!failing.isEmpty, "collecting without acknowledgements never went wrong")
    }
}
