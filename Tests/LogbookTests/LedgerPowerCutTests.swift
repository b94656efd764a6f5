import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Power cuts while a node pulls and acknowledges: both nodes, their logs and their peer
// ledgers share one SimulatedFileSystem, a random system call fails (the moment of the
// cut), the power goes, everything reopens. The ledgers must open; the follower's saved
// cursor must never claim more of the leader's log than its state holds; and what the
// leader recorded as acknowledged must never be ahead of the follower's cursor.
@Suite struct LedgerPowerCutTests {
    static let seeds: [UInt64] = Array(1...40)

    struct Outcome {
        /// The path of the write the cut interrupted.
        var cutPath: String?
    }

    func run(seed: UInt64) async throws -> Outcome {
        let fileSystem = SimulatedFileSystem()
        let clock = SimulatedClock(startNanoseconds: 1_700_000_000 * 1_000_000_000)
        var options = smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem)
        options.wallClock = clock
        var random = SeededGenerator(seed: seed)
        let leader = try Logbook.open(directory: "/a", nodeId: 1, options: options)
        let follower = try Logbook.open(directory: "/b", nodeId: 2, options: options)
        let leaderLedger = try PeerLedger(for: leader)
        let followerLedger = try PeerLedger(for: follower)
        try leaderLedger.register(2)
        try followerLedger.register(1)
        var transport = SimulatedReplicationTransport(
            network: SimulatedNetwork(nodes: 2, seed: seed, dropProbability: 0), from: 1, to: 0,
            source: ReplicationSource(logbook: leader, ledger: leaderLedger))
        transport.fetchBytes = 200..<2000
        let session = ReplicationSession(
            logbook: follower, ledger: followerLedger, transport: transport)

        var outcome = Outcome()
        fileSystem.failOperations(after: Int.random(in: 0...400, using: &random))
        for step in 0..<80 {
            clock.advance(nanoseconds: 1_000_000_000)
            do {
                _ = try await leader.insertOrUpdate(
                    "r\(step % 9)", fields: [("v", .int(Int64(step)))])
                if step % 3 == 2 { _ = try await session.step() }
            } catch {
                outcome.cutPath = (error as? LogbookError)?.path
                break
            }
        }
        fileSystem.crash(using: &random)

        let leaderAfter = try Logbook.open(directory: "/a", options: options)
        let followerAfter = try Logbook.open(directory: "/b", options: options)
        defer {
            try? leaderAfter.close()
            try? followerAfter.close()
        }
        let cursor = try PeerLedger(for: followerAfter).cursor(for: "sim://node1")
        let acknowledged =
            try PeerLedger(for: leaderAfter).acknowledgement(of: 2)?.acknowledged ?? 0
        #expect(cursor <= leaderAfter.nextOffset, "seed \(seed): cursor past the leader's log")
        #expect(acknowledged <= cursor, "seed \(seed): acknowledged \(acknowledged) > \(cursor)")
        // Everything below the cursor is in the follower's state: merged again, none of it
        // is new to a replica holding that state.
        var below: [Change<String, String, Value>] = []
        try leaderAfter.forEachChange(since: 0) { offset, change in
            if offset < cursor { below.append(change) }
        }
        let probe = CRDT<String, String, Value>(nodeId: 9)
        probe.mergeChanges(followerAfter.getChangesSince(0))
        let missing = probe.mergeChanges(below)
        #expect(missing.isEmpty, "seed \(seed): \(missing.count) changes below the cursor lost")
        return outcome
    }

    @Test func aPowerCutDuringPullsAndAcknowledgementsLosesNothingClaimed() async throws {
        var cutInLedger = 0
        for seed in Self.seeds {
            let outcome = try await run(seed: seed)
            if outcome.cutPath?.hasSuffix("peers.json") == true
                || outcome.cutPath?.contains("peers.json.") == true
            {
                cutInLedger += 1
            }
        }
        #expect(cutInLedger > 0, "no cut fell on a ledger write: the seeds prove nothing")
    }
}
