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

    /// The ceiling the durable appends are held to: syncs over zeros written ahead, which
    /// is how the log writes with `.groupCommit` and `.fsyncEachAppend`.
    static let zeroFilledFsyncCeilingName = "fdatasync of 4 KiB writes over zeros"

    /// Adds to the group-commit figure with many writers the bound its settings allow:
    /// writers × changes per call × the disk's fdatasyncs per second, measured the way the
    /// log syncs (over zeros written ahead; each writer waits for the sync that covers its
    /// call), and how much of it was reached.
    func annotateGroupCommitBound(_ figures: inout [BenchFigure], changesPerCall: Double) {
        guard
            let fsyncs = figures.first(where: {
                $0.system == "ceiling" && $0.name == Self.zeroFilledFsyncCeilingName
            }
            )?.fsyncsPerSecond,
            let index = figures.firstIndex(where: {
                $0.name.hasPrefix("append .groupCommit, \(writers) writers")
            })
        else { return }
        let bound = Double(writers) * changesPerCall * fsyncs
        figures[index].note +=
            "; bound \(formatCount(bound)) changes/s (\(writers) writers × "
            + String(format: "%.2f", changesPerCall) + " changes per call × "
            + String(format: "%.0f", fsyncs) + " fdatasyncs/s), "
            + String(format: "%.0f%%", 100 * figures[index].changesPerSecond / bound) + " reached"
    }
}
