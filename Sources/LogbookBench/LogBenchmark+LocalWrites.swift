import Foundation
import Logbook
import LogbookCRDT
import LogbookWorkloads

extension LogBenchmark {
    /// Names of the two reference figures for the local writes alone.
    static let localWritesAloneOneCallName =
        "reference: local writes, specialized state alone, one call each, no log"
    static let localWritesAloneBatchedName =
        "reference: local writes, specialized state alone, 10k a call, no log"

    /// The workload's local writes made on a bare replica state, as the engine's writes make
    /// them under its lock: one call each, then 10,000 a call (`ReplicaState.write`). These
    /// are what the two `.buffered` append figures cannot exceed; the rest of an append
    /// (admission, the lock, encoding and logging, the async call) is what they add.
    func localWritesAloneFigures(_ operations: [StandardWorkload.Operation]) async throws
        -> [BenchFigure]
    {
        progress("local writes on the replica state alone: one call each, then 10,000 a call")
        let oneCall = try await stateAloneFigure(
            name: Self.localWritesAloneOneCallName,
            note: "the ceiling of append .buffered, 1 writer: ReplicaState's calls alone"
        ) { state in
            var changes: [Change<String, String, Value>] = []
            return try operations.reduce(0) { $0 + (try $1.apply(to: state, reusing: &changes)) }
        }
        let batches = Self.writeBatches(operations)
        let batched = try await stateAloneFigure(
            name: Self.localWritesAloneBatchedName,
            note: "the ceiling of append .buffered, 10k writes/call: ReplicaState.write alone"
        ) { state in
            batches.reduce(0) {
                $0
                    + state.write($1, refusingColumnVersionsFrom: ChangeLimits.versionMax)
                    .changes.count
            }
        }
        return [oneCall, batched]
    }

    /// The operations as local writes in calls of 10,000, cut before any clock starts.
    static func writeBatches(_ operations: [StandardWorkload.Operation]) -> [[LocalWrite]] {
        stride(from: 0, to: operations.count, by: 10_000).map { start in
            operations[start..<min(start + 10_000, operations.count)].map(\.localWrite)
        }
    }

    /// The rate at which `makeWrites` makes its changes on a new replica state (made
    /// untimed), median over the runs.
    private func stateAloneFigure(
        name: String, note: String, _ makeWrites: (ReplicaState) throws -> Int
    ) async throws -> BenchFigure {
        var made = 0
        let (seconds, peak) = try await measure(runs: runs) {
            let state = ReplicaState(nodeId: 1)
            let started = ContinuousClock.now
            made = try makeWrites(state)
            return (ContinuousClock.now - started).seconds
        }
        return BenchFigure(
            system: "Logbook", name: name, changesPerSecond: Double(made) / seconds,
            peakMegabytes: peak, note: note)
    }

    /// Adds to each `.buffered` append figure's note the share it reached of its local
    /// writes alone, measured in the same run.
    func annotateLocalWritesShare(_ figures: inout [BenchFigure]) {
        for (appendName, aloneName) in [
            ("append .buffered, 1 writer", Self.localWritesAloneOneCallName),
            ("append .buffered, 10k writes/call", Self.localWritesAloneBatchedName),
        ] {
            guard
                let alone = figures.first(where: { $0.name == aloneName })?.changesPerSecond,
                alone > 0, let index = figures.firstIndex(where: { $0.name == appendName })
            else { continue }
            figures[index].note +=
                "; " + String(format: "%.0f%%", 100 * figures[index].changesPerSecond / alone)
                + " of the local writes alone (\(formatCount(alone)) changes/s)"
        }
    }
}
