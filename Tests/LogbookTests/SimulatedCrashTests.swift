import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Seeded power cuts through SimulatedFileSystem: a random workload runs until an injected
// I/O failure at a random system call (the moment of the cut), then the file system
// crashes (unsynced data lost or torn, unsynced directory changes lost) and the Logbook is
// reopened. It must open; what it holds must be a prefix of what was written (no hole, no
// phantom) that contains every acknowledged change; and its state must equal a replica
// rebuilt from that prefix. A failure prints the seed.
@Suite struct SimulatedCrashTests {
    static let seeds: [UInt64] = Array(1...60)

    private func options(_ durability: Durability, _ fileSystem: SimulatedFileSystem)
        -> LogbookOptions
    {
        smallLogOptions(durability, fileSystem: fileSystem)
    }

    /// Every change the workload produces, from a fault-free run of the same seed.
    private func referenceChanges(seed: UInt64, steps: Int) async throws -> [Change<
        String, String, Value
    >] {
        let fileSystem = SimulatedFileSystem()
        let logbook = try Logbook.open(
            directory: "/reference", nodeId: 3, options: options(.buffered, fileSystem))
        var workload = Workload(seed: seed)
        var changes: [Change<String, String, Value>] = []
        for _ in 0..<steps { changes += try await workload.step(logbook) }
        try logbook.close()
        return changes
    }

    struct CrashOutcome {
        var reference: [Change<String, String, Value>]
        var acknowledged: [Change<String, String, Value>]
        var recovered: [Change<String, String, Value>]
        var digestMatchesRebuild: Bool
    }

    /// Runs the workload until the injected failure, cuts the power, reopens.
    private func runUntilPowerCut(seed: UInt64, durability: Durability) async throws -> CrashOutcome
    {
        let steps = 150
        let reference = try await referenceChanges(seed: seed, steps: steps)
        let fileSystem = SimulatedFileSystem()
        var random = SeededGenerator(seed: seed &* 7919)
        let logbook = try Logbook.open(
            directory: "/data", nodeId: 3, options: options(durability, fileSystem))
        fileSystem.failOperations(after: Int.random(in: 0...400, using: &random))
        var workload = Workload(seed: seed)
        var acknowledged: [Change<String, String, Value>] = []
        for _ in 0..<steps {
            do { acknowledged += try await workload.step(logbook) } catch { break }
        }
        fileSystem.crash(using: &random)

        let reopened = try Logbook.open(
            directory: "/data", options: options(durability, fileSystem))
        defer { try? reopened.close() }
        var recovered: [Change<String, String, Value>] = []
        try reopened.forEachChange(since: 0) { _, change in recovered.append(change) }
        let rebuilt = CRDT<String, String, Value>(nodeId: 3, changes: recovered)
        return CrashOutcome(
            reference: reference, acknowledged: acknowledged, recovered: recovered,
            digestMatchesRebuild: reopened.stateDigest() == StateDigest(of: rebuilt))
    }

    @Test(arguments: seeds)
    func acknowledgedChangesSurviveAPowerCutAtAnyPoint(seed: UInt64) async throws {
        let durability = Durability.allCases[Int(seed % 3)]
        let outcome = try await runUntilPowerCut(seed: seed, durability: durability)
        #expect(
            outcome.recovered == Array(outcome.reference.prefix(outcome.recovered.count)),
            "seed=\(seed): not a prefix of what was written")
        if durability != .buffered {
            #expect(
                outcome.recovered.count >= outcome.acknowledged.count,
                "seed=\(seed): lost acknowledged changes (\(durability))")
        }
        #expect(outcome.digestMatchesRebuild, "seed=\(seed)")
    }

    /// The canary: buffered mode promises nothing across a power cut, so treating its
    /// acknowledgements as durable must fail the check for some seeds. If it never does, the
    /// checker (or the fault model) has gone blind.
    @Test func checkerDetectsLossWhenAcknowledgementsAreNotDurable() async throws {
        var seedsWithLoss = 0
        for seed in UInt64(1)...20 {
            let outcome = try await runUntilPowerCut(seed: seed, durability: .buffered)
            if outcome.recovered.count < outcome.acknowledged.count { seedsWithLoss += 1 }
        }
        #expect(seedsWithLoss > 0)
    }
}
