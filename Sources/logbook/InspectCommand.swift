import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookStorage

/// `logbook inspect DIR`: segments, batches, records, sizes and compression.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the log's segments, batches, records, offsets and compression.",
        discussion:
            "Reads every batch (checking its checksum) but decodes no change. Damaged segments are listed with the problem; see also `logbook verify`."
    )

    @OptionGroup var target: DirectoryArgument

    func run() throws {
        let (log, summaries) = try readSegmentSummaries(target.directory, label: "inspect")
        defer { try? log.close() }  // read-only use: nothing pending to lose
        print(
            "log \(target.directory): offsets \(log.startOffset)..<\(log.nextOffset), \(summaries.count) segments"
        )
        if !log.recovery.isClean { print("recovery: \(log.recovery)") }
        let header = [
            "segment", "offsets", "batches", "records", "raw", "on disk", "ratio", "B/record",
        ]
        var rows: [[String]] = []
        for summary in summaries {
            rows.append([
                summary.name + (summary.isActive ? " (active)" : ""),
                "\(summary.baseOffset)..<\(summary.nextOffset)", "\(summary.batchCount)",
                "\(summary.recordCount)",
                formatBytes(summary.rawBytes), formatBytes(summary.sizeBytes),
                ratio(summary.rawBytes, summary.sizeBytes),
                perRecord(summary.sizeBytes, summary.recordCount),
            ])
            if let problem = summary.problem { rows.append(["  DAMAGED: \(problem)"]) }
        }
        let raw = summaries.reduce(0) { $0 + $1.rawBytes }
        let disk = summaries.reduce(0) { $0 + $1.sizeBytes }
        let records = summaries.reduce(0) { $0 + $1.recordCount }
        rows.append([
            "total", "", "\(summaries.reduce(0) { $0 + $1.batchCount })", "\(records)",
            formatBytes(raw), formatBytes(disk),
            ratio(raw, disk), perRecord(disk, records),
        ])
        printTable(header: header, rows: rows)
        printMaintenanceSummary()
        if summaries.contains(where: { $0.problem != nil }) { throw ExitCode(3) }
    }

    /// Dirty ratio and tombstones, from a dry-run compaction (needs an intact log).
    private func printMaintenanceSummary() {
        var options = LogbookOptions()
        options.durability = .buffered
        options.readOnly = true
        var dryRun = CompactionOptions()
        dryRun.dryRun = true
        do {
            let logbook = try Logbook.open(directory: target.directory, options: options)
            let report = try logbook.compact(dryRun)
            print(
                "dirty ratio: \(String(format: "%.2f", report.dirtyRatio)) of \(report.recordsBefore) sealed records are superseded; live tombstones: \(report.tombstones); live keys: \(report.liveKeys)"
            )
            print(
                "tombstone GC: node \(logbook.nodeId) holds \(logbook.tombstoneCount()) tombstones; collected below offset \(logbook.collectedBelow); \(logbook.fencedRecordCount) collected records fenced; history starts at \(logbook.historyStart)"
            )
            try logbook.close()
        } catch {
            print("dirty ratio: unavailable (\(error))")
        }
    }

    private func ratio(_ raw: Int64, _ disk: Int64) -> String {
        disk > 0 ? String(format: "%.2fx", Double(raw) / Double(disk)) : "-"
    }

    private func perRecord(_ bytes: Int64, _ records: Int) -> String {
        records > 0 ? String(format: "%.1f", Double(bytes) / Double(records)) : "-"
    }
}

/// Opens an existing log read-only (no byte changes) and reads every batch of every
/// segment, with progress on a terminal; failures become exit codes (4 for a directory
/// that is not a Logbook). The caller closes the log.
func readSegmentSummaries(_ directory: String, label: String) throws -> (Log, [SegmentSummary]) {
    guard Logbook.isLogbookDirectory(directory) else {
        throw exitWithError(
            LogbookError(
                .nodeMismatch, "not a Logbook directory (no \(Logbook.metadataFileName))",
                path: directory))
    }
    let log: Log
    do { log = try Log.openReadOnly(directory: directory) } catch {
        throw exitWithError(error)
    }
    if !log.recovery.isClean {
        var standardError = StandardError()
        print("recovery: \(log.recovery)", to: &standardError)
    }
    let bar = ProgressBar.isTerminal ? ProgressBar(label: label) : nil
    do {
        return (log, try log.inspect { bar?.update($0, of: $1) })
    } catch {
        try? log.close()  // read-only use: nothing pending to lose
        throw exitWithError(error)
    }
}

/// Prints rows under a header, columns padded to their widest cell; one-cell rows span.
func printTable(header: [String], rows: [[String]]) {
    print(TextTable.render(header: header, rows: rows), terminator: "")
}
