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
        var made = 0
        let (oneCallSeconds, oneCallPeak) = try await measure(runs: runs) {
            let state = ReplicaState(nodeId: 1)
            let started = ContinuousClock.now
            var count = 0
            for operation in operations { count += try operation.apply(to: state) }
            made = count
            return (ContinuousClock.now - started).seconds
        }
        let oneCall = BenchFigure(
            system: "Logbook", name: Self.localWritesAloneOneCallName,
            changesPerSecond: Double(made) / oneCallSeconds, peakMegabytes: oneCallPeak,
            note: "the ceiling of append .buffered, 1 writer: ReplicaState's calls alone")
        let batches = stride(from: 0, to: operations.count, by: 10_000).map { start in
            operations[start..<min(start + 10_000, operations.count)].map(\.localWrite)
        }
        let (batchedSeconds, batchedPeak) = await measure(runs: runs) {
            let state = ReplicaState(nodeId: 1)
            let started = ContinuousClock.now
            var count = 0
            for batch in batches {
                count +=
                    state.write(batch, refusingColumnVersionsFrom: ChangeLimits.versionMax)
                    .changes.count
            }
            made = count
            return (ContinuousClock.now - started).seconds
        }
        let batched = BenchFigure(
            system: "Logbook", name: Self.localWritesAloneBatchedName,
            changesPerSecond: Double(made) / batchedSeconds, peakMegabytes: batchedPeak,
            note: "the ceiling of append .buffered, 10k writes/call: ReplicaState.write alone")
        return [oneCall, batched]
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
