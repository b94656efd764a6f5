import Foundation
import Logbook
import LogbookCRDT
import LogbookWorkloads

/// `logbook bench maintenance`: compaction and tombstone GC on an update-heavy log (the
/// standard workload's operations over few records, so every (record, column) is written
/// about ten times), and the compacted log's size next to a log holding only the live
/// state.
struct MaintenanceBenchmark {
    let directory: String
    /// Records in the workload; changes are ten per (record, column) on average.
    let records: Int
    let runs: Int
    let progress: (String) -> Void

    var changes: Int { records * StandardWorkload.columns.count * 10 }

    func run() async throws -> [BenchFigure] {
        var compactions: [CompactionReport] = []
        var collections: [TombstoneCollectionReport] = []
        var liveOnlyBytes: Int64 = 0
        var compactedBytes: Int64 = 0
        var liveKeys = 0
        let (compactionSeconds, peak) = try await measure(runs: runs) {
            progress("writing \(changes) changes")
            let logbook = try await writeLog()
            progress("compacting")
            var options = CompactionOptions()
            options.dirtyRatioMin = 0
            let report = try logbook.compact(options)
            compactions.append(report)
            progress(
                String(
                    format: "compacted in %.3f s (pass 1 %.3f s)", report.seconds,
                    report.findSeconds))
            compactedBytes = logbook.sizeBytes
            liveKeys = report.liveKeys
            liveOnlyBytes = try await liveOnlyLogBytes(of: logbook)
            progress("tombstone GC")
            var gc = TombstoneCollectionOptions()
            gc.retentionSeconds = 0
            collections.append(
                try logbook.collectTombstones(peers: try PeerLedger(directory: directory), gc))
            try logbook.close()
            return report.seconds
        }
        guard let compaction = compactions.last, let collection = collections.last else {
            return []
        }
        let ties = try await tiesFigures()
        let gcSeconds = collections.map(\.seconds).sorted()[collections.count / 2]
        let rawPerSecond = Double(compaction.rawBytesRead) / compactionSeconds
        return [
            BenchFigure(
                system: "Logbook", name: "compaction, update-heavy log (10 writes per key)",
                changesPerSecond: Double(compaction.recordsBefore) / compactionSeconds,
                rawMegabytesPerSecond: rawPerSecond / 1e6, peakMegabytes: peak,
                note:
                    "\(compaction.recordsBefore) -> \(compaction.recordsAfter) records, \(formatBytes(compaction.bytesBefore)) -> \(formatBytes(compaction.bytesAfter)); winner map \(String(format: "%.1f", Double(compaction.winnerMapBytes) / Double(max(1, liveKeys)))) B per live key (\(liveKeys) keys), record and column numbering \(String(format: "%.1f", Double(compaction.numberingBytes) / Double(max(1, liveKeys)))) B per live key, \(compaction.versionReadBacks) ties read back; pass 1 \(String(format: "%.3f", compaction.findSeconds)) s of \(String(format: "%.3f", compaction.seconds)) s"
            )
        ]
            + ties + [
                BenchFigure(
                    system: "Logbook", name: "compacted log ÷ log of the live state only",
                    changesPerSecond: 0,
                    note:
                        "\(formatBytes(compactedBytes)) ÷ \(formatBytes(liveOnlyBytes)) = \(String(format: "%.2f", Double(compactedBytes) / Double(max(1, liveOnlyBytes))))×"
                ),
                BenchFigure(
                    system: "Logbook", name: "tombstone GC, standalone",
                    changesPerSecond: Double(collection.recordsRemoved) / max(gcSeconds, 1e-9),
                    note:
                        "\(collection.collected) tombstones, \(collection.recordsRemoved) records removed in \(collection.segmentsRewritten) segments, \(formatBytes(collection.bytesBefore)) -> \(formatBytes(collection.bytesAfter)), \(String(format: "%.3f", gcSeconds)) s"
                ),
            ]
    }

    /// The update-heavy log, every segment sealed (compaction reaches only sealed ones).
    private func writeLog() async throws -> Logbook {
        try? FileManager.default.removeItem(atPath: directory)
        let logbook = try Logbook.open(directory: directory, nodeId: 1, options: Self.logOptions)
        var workload = StandardWorkload(recordCount: records)
        var written = 0
        while written < changes {
            written += max(1, try await workload.next().apply(to: logbook))
        }
        try logbook.sealActiveSegment()
        // Written buffered; make it durable now, so the kernel's writeback of the workload
        // does not run during (and get charged to) the compaction measured next.
        try logbook.sync()
        return logbook
    }

    /// Bytes of a fresh log holding only `logbook`'s state (live columns and tombstones),
    /// written the same way.
    private func liveOnlyLogBytes(of logbook: Logbook) async throws -> Int64 {
        let path = directory + "-live"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let live = try Logbook.open(directory: path, nodeId: 2, options: Self.logOptions)
        let state = logbook.getChangesSince(0)  // live columns and tombstones: the state
        for start in stride(from: 0, to: state.count, by: 10_000) {
            _ = try await live.merge(Array(state[start..<min(state.count, start + 10_000)]))
        }
        try live.sealActiveSegment()
        let bytes = live.sizeBytes
        try live.close()
        return bytes
    }
}
