import Foundation
import Logbook
import LogbookWorkloads

extension MaintenanceBenchmark {
    /// Compaction of a log where many changes tie on `colVersion` with the winner before
    /// them (two nodes editing the same columns): with pass 1 keeping recent versions
    /// (the default) and, on a copy of the same log in the same run, reading every tie back
    /// from the log (`recentVersionsKept = 0`, how every tie was settled before).
    func tiesFigures() async throws -> [BenchFigure] {
        var kept: [CompactionReport] = []
        var readBack: [CompactionReport] = []
        var keptSeconds: [Double] = []
        let (readBackSeconds, peak) = try await measure(runs: runs) {
            progress("writing \(changes) changes, many of them ties")
            let path = directory + "-ties"
            let copy = path + "-copy"
            try await writeTiedLog(at: path)
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            defer {
                try? FileManager.default.removeItem(atPath: path)
                try? FileManager.default.removeItem(atPath: copy)
            }
            progress("compacting the tied log, recent versions kept")
            kept.append(
                try compact(path, recentVersionsKept: CompactionOptions().recentVersionsKept))
            keptSeconds.append(kept.last?.seconds ?? 0)
            progress("compacting its copy, every tie read back")
            readBack.append(try compact(copy, recentVersionsKept: 0))
            return readBack.last?.seconds ?? 0
        }
        guard let keptReport = kept.last, let readBackReport = readBack.last else { return [] }
        let keptMedian = keptSeconds.sorted()[keptSeconds.count / 2]
        return [
            tiesFigure(
                keptReport, seconds: keptMedian, peak: nil,
                name: "compaction with ties (two nodes, same columns)",
                extra: String(
                    format: "; %.1fx reading every tie back", readBackSeconds / keptMedian)),
            tiesFigure(
                readBackReport, seconds: readBackSeconds, peak: peak,
                name: "compaction with ties, every tie read back", extra: ""),
        ]
    }

    private func tiesFigure(
        _ report: CompactionReport, seconds: Double, peak: Double?, name: String, extra: String
    ) -> BenchFigure {
        let ties = report.tiesSettledInMemory + report.versionReadBacks
        let share = 100 * Double(ties) / Double(max(1, report.recordsBefore))
        return BenchFigure(
            system: "Logbook", name: name,
            changesPerSecond: Double(report.recordsBefore) / seconds,
            rawMegabytesPerSecond: Double(report.rawBytesRead) / seconds / 1e6,
            peakMegabytes: peak,
            note:
                "\(report.recordsBefore) -> \(report.recordsAfter) records; \(ties) ties (\(String(format: "%.0f", share)) %): \(report.tiesSettledInMemory) settled in memory, \(report.versionReadBacks) read back from the log; pass 1 \(String(format: "%.3f", report.findSeconds)) s of \(String(format: "%.3f", report.seconds)) s"
                + extra)
    }

    private func compact(_ path: String, recentVersionsKept: Int) throws -> CompactionReport {
        let logbook = try Logbook.open(directory: path, options: Self.logOptions)
        defer { try? logbook.close() }
        var options = CompactionOptions()
        options.dirtyRatioMin = 0
        options.recentVersionsKept = recentVersionsKept
        return try logbook.compact(options)
    }

    /// Every log the suite writes: buffered, 4 MiB segments (compaction reaches sealed ones).
    static var logOptions: LogbookOptions {
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 4 * 1024 * 1024
        return options
    }

    /// `TiedWorkload` written into a fresh log at `path`, all of it synced.
    private func writeTiedLog(at path: String) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: Self.logOptions)
        try await TiedWorkload(records: records, changes: changes).write(into: logbook)
        try logbook.close()
    }
}
