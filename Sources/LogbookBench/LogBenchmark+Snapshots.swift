import Foundation
import Logbook

extension LogBenchmark {
    /// Writing a replica snapshot of the benchmark's log, and opening from it (the whole
    /// log covered, so no tail), beside the whole-log replay measured just before.
    func snapshotFigures(changes: Int, replaySeconds: Double) async throws -> [BenchFigure] {
        var options = LogbookOptions()
        options.durability = .buffered
        options.snapshots.onCloseAfterBytes = nil
        progress("snapshot: write")
        var written: SnapshotReport?
        let (writeSeconds, writePeak) = try await measure(runs: runs) {
            for name in try FileManager.default.contentsOfDirectory(atPath: logDirectory)
            where name.hasPrefix("snapshot-") {
                try FileManager.default.removeItem(atPath: logDirectory + "/" + name)
            }
            options.snapshots.loadAtOpen = false
            let logbook = try Logbook.open(directory: logDirectory, options: options)
            let report = try logbook.writeSnapshot()
            try logbook.close()
            written = report
            return report.seconds
        }
        guard let written else { return [] }
        progress("open: from a snapshot")
        var loaded = SnapshotLoad()
        let (openSeconds, openPeak) = try await measure(runs: runs) {
            options.snapshots.loadAtOpen = true
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: logDirectory, options: options)
            let seconds = (ContinuousClock.now - started).seconds
            loaded = logbook.snapshotLoad
            try logbook.close()
            return seconds
        }
        let entries = "\(written.entries) entries, \(formatBytes(written.bytes))"
        return [
            BenchFigure(
                system: "Logbook", name: "snapshot: write the replica's state",
                changesPerSecond: Double(written.entries) / writeSeconds,
                diskMegabytesPerSecond: Double(written.bytes) / writeSeconds / 1e6,
                peakMegabytes: writePeak, note: "\(entries); rate in entries/s"),
            BenchFigure(
                system: "Logbook", name: "open: from a snapshot (no tail)",
                changesPerSecond: Double(changes) / openSeconds,
                diskMegabytesPerSecond: Double(written.bytes) / openSeconds / 1e6,
                peakMegabytes: openPeak,
                note: loaded.file == nil
                    ? "no snapshot loaded: \(loaded.setAside)"
                    : "\(entries); \(String(format: "%.3f", openSeconds)) s, "
                        + "\(String(format: "%.1f", replaySeconds / openSeconds))x faster than "
                        + "the whole-log replay; rate in log changes/s"),
        ]
    }
}
