import Foundation
import LogbookCRDT

extension LogBenchmark {
    /// Writing crdt-lite JSON, encode only: Logbook's writer (what `GET /changes` and
    /// `GET /snapshot` send, and JSON lines) next to a `JSONEncoder` per change with the same
    /// settings (what they used before), on the same changes in the same run.
    func jsonEncodingFigures(_ changes: [Change<String, String, Value>]) async throws
        -> [BenchFigure]
    {
        progress("JSON encoding")
        let (linesSeconds, linesPeak, linesBytes) = try await timedEncoding {
            try ChangeJSON.encodeLines(changes, format: .rust).count
        }
        let (foundationSeconds, foundationPeak, foundationBytes) = try await timedEncoding {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var bytes = 0
            for change in changes {
                bytes += try encoder.encode(change).count + 1
            }
            return bytes
        }
        let count = Double(changes.count)
        return [
            BenchFigure(
                system: "Logbook", name: "JSON write: JSON lines, Rust form (GET /changes)",
                changesPerSecond: count / linesSeconds,
                rawMegabytesPerSecond: Double(linesBytes) / linesSeconds / 1e6,
                peakMegabytes: linesPeak,
                note: String(
                    format: "encode only; %.1fx JSONEncoder per change",
                    foundationSeconds / linesSeconds)),
            BenchFigure(
                system: "JSON", name: "JSON write: JSONEncoder per change, the same changes",
                changesPerSecond: count / foundationSeconds,
                rawMegabytesPerSecond: Double(foundationBytes) / foundationSeconds / 1e6,
                peakMegabytes: foundationPeak, note: "encode only; Swift form, sorted keys"),
        ]
    }

    /// The median seconds, peak memory and bytes written of `encode` over the runs.
    private func timedEncoding(_ encode: () throws -> Int) async throws -> (Double, Double?, Int) {
        var bytes = 0
        let (seconds, peak) = try await measure(runs: runs) {
            let started = ContinuousClock.now
            bytes = try encode()
            return (ContinuousClock.now - started).seconds
        }
        return (seconds, peak, bytes)
    }
}
