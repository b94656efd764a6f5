import Foundation
import LogbookCRDT

extension LogBenchmark {
    /// Reading crdt-lite JSON, decode only (no CRDT): Logbook's readers next to
    /// `JSONDecoder` on the same bytes, in the same run. The array (Swift form) is what
    /// `POST /changes` takes; JSON lines in the Rust form are what `logbook append` reads.
    func jsonDecodingFigures(_ changes: [Change<String, String, Value>]) async throws
        -> [BenchFigure]
    {
        progress("JSON decoding")
        let array = try JSONEncoder().encode(changes)
        let lines = try ChangeJSON.encodeLines(changes, format: .rust)
        let (arraySeconds, arrayPeak) = try await timedDecoding(expecting: changes.count) {
            try ChangeJSON.decodeArray(array, as: Change<String, String, Value>.self).count
        }
        let (linesSeconds, linesPeak) = try await timedDecoding(expecting: changes.count) {
            try ChangeJSON.decodeLines(lines, as: Change<String, String, Value>.self).count
        }
        let (foundationSeconds, foundationPeak) = try await timedDecoding(
            expecting: changes.count
        ) {
            try JSONDecoder().decode([Change<String, String, Value>].self, from: array).count
        }
        let count = Double(changes.count)
        let ratio = { (seconds: Double) in
            String(format: "%.1fx JSONDecoder", foundationSeconds / seconds)
        }
        return [
            BenchFigure(
                system: "Logbook", name: "JSON read: crdt-lite array, Swift form (POST /changes)",
                changesPerSecond: count / arraySeconds,
                rawMegabytesPerSecond: Double(array.count) / arraySeconds / 1e6,
                peakMegabytes: arrayPeak, note: "decode only; " + ratio(arraySeconds)),
            BenchFigure(
                system: "Logbook", name: "JSON read: JSON lines, Rust form (logbook append)",
                changesPerSecond: count / linesSeconds,
                rawMegabytesPerSecond: Double(lines.count) / linesSeconds / 1e6,
                peakMegabytes: linesPeak, note: "decode only; " + ratio(linesSeconds)),
            BenchFigure(
                system: "JSON", name: "JSON read: JSONDecoder, the same array",
                changesPerSecond: count / foundationSeconds,
                rawMegabytesPerSecond: Double(array.count) / foundationSeconds / 1e6,
                peakMegabytes: foundationPeak, note: "decode only"),
        ]
    }

    /// The median seconds and peak memory of `decode` over the runs; throws when a run
    /// decodes another number of changes than `expecting`.
    private func timedDecoding(expecting: Int, _ decode: () throws -> Int) async throws -> (
        Double, Double?
    ) {
        try await measure(runs: runs) {
            let started = ContinuousClock.now
            let decoded = try decode()
            let seconds = (ContinuousClock.now - started).seconds
            guard decoded == expecting else { throw CocoaError(.coderReadCorrupt) }
            return seconds
        }
    }
}
