import Foundation
import Logbook
import LogbookStorage

/// `logbook inspect` and `logbook verify`: every segment of a log as read batch by batch
/// (`Log.inspect`), with what is damaged; `inspect` adds the maintenance figures.
package struct SegmentsReport: CommandReport {
    /// The two commands that read every segment.
    package enum Command: String, Encodable {
        case inspect, verify
    }
    /// One segment file.
    package struct Segment: Encodable {
        package var name: String
        /// Whether appends go to it (the last segment).
        package var active: Bool
        /// The offsets it holds: `baseOffset..<nextOffset`.
        package var baseOffset: UInt64
        package var nextOffset: UInt64
        package var batches: Int
        package var records: Int
        /// Bytes of its batches' payloads before and after LZ4.
        package var rawBytes: Int64
        package var bytes: Int64
        /// Why it is damaged (the first problem, with its byte offset); absent when intact.
        package var problem: String?
        /// Zero bytes after its last batch (zeros written ahead, cut at close or sealing).
        package var zeroBytesAfterBatches: Int64

        init(_ summary: SegmentSummary) {
            name = summary.name
            active = summary.isActive
            baseOffset = summary.baseOffset
            nextOffset = summary.nextOffset
            batches = summary.batchCount
            records = summary.recordCount
            rawBytes = summary.rawBytes
            bytes = summary.sizeBytes
            problem = summary.problem.map(String.init(describing:))
            zeroBytesAfterBatches = summary.zeroBytesAfterBatches
        }
    }

    /// The sums over every segment.
    package struct Totals: Encodable {
        package var segments = 0
        package var damagedSegments = 0
        package var batches = 0
        package var records = 0
        package var rawBytes: Int64 = 0
        package var bytes: Int64 = 0
    }

    package var command: Command
    package var directory: String
    /// The log's offsets: `startOffset..<nextOffset`.
    package var startOffset: UInt64
    package var nextOffset: UInt64
    /// What opening repaired (a torn tail cut), absent when the log was clean.
    package var recovery: String?
    package var segments: [Segment]
    package var totals = Totals()
    /// True when every batch of every segment checked out.
    package var intact = true
    /// `inspect` only: what compaction and GC would find (`MaintenanceSummary`).
    package var maintenance: MaintenanceSummary?
    /// `inspect` only: why `maintenance` is missing (a damaged log cannot be opened).
    package var maintenanceUnavailable: String?

    package init(_ command: Command, directory: String, log: Log, summaries: [SegmentSummary]) {
        self.command = command
        self.directory = directory
        startOffset = log.startOffset
        nextOffset = log.nextOffset
        recovery = log.recovery.isClean ? nil : String(describing: log.recovery)
        segments = summaries.map(Segment.init)
        for segment in segments {
            totals.segments += 1
            totals.damagedSegments += segment.problem == nil ? 0 : 1
            totals.batches += segment.batches
            totals.records += segment.records
            totals.rawBytes += segment.rawBytes
            totals.bytes += segment.bytes
        }
        intact = totals.damagedSegments == 0
    }

    package var text: String {
        switch command {
        case .inspect: inspectText
        case .verify: verifyText
        }
    }

    private var verifyText: String {
        var lines = segments.compactMap { segment in
            segment.problem.map { "DAMAGED \(segment.name): \($0)" }
        }
        lines.append(
            intact
                ? "ok: \(totals.segments) segments, \(totals.batches) batches, \(totals.records) records verified"
                : "\(totals.damagedSegments) of \(totals.segments) segments damaged")
        return lines.joined(separator: "\n")
    }

    private var inspectText: String {
        var text =
            "log \(directory): offsets \(startOffset)..<\(nextOffset), \(segments.count) segments\n"
        if let recovery { text += "recovery: \(recovery)\n" }
        var rows: [[String]] = segments.flatMap { segment in
            [
                [
                    segment.name + (segment.active ? " (active)" : ""),
                    "\(segment.baseOffset)..<\(segment.nextOffset)", "\(segment.batches)",
                    "\(segment.records)", formatBytes(segment.rawBytes), formatBytes(segment.bytes),
                    Self.ratio(segment.rawBytes, segment.bytes),
                    Self.perRecord(segment.bytes, segment.records),
                ]
            ] + (segment.problem.map { [["  DAMAGED: \($0)"]] } ?? [])
                + (segment.zeroBytesAfterBatches > 0
                    ? [
                        [
                            "  then \(formatBytes(segment.zeroBytesAfterBatches)) of zeros written ahead"
                        ]
                    ]
                    : [])
        }
        rows.append([
            "total", "", "\(totals.batches)", "\(totals.records)", formatBytes(totals.rawBytes),
            formatBytes(totals.bytes), Self.ratio(totals.rawBytes, totals.bytes),
            Self.perRecord(totals.bytes, totals.records),
        ])
        text += TextTable.render(
            header: [
                "segment", "offsets", "batches", "records", "raw", "on disk", "ratio", "B/record",
            ],
            rows: rows)
        if let maintenance {
            text += maintenance.text
        } else if let maintenanceUnavailable {
            text += "dirty ratio: unavailable (\(maintenanceUnavailable))"
        }
        return text
    }

    private static func ratio(_ raw: Int64, _ disk: Int64) -> String {
        disk > 0 ? String(format: "%.2fx", Double(raw) / Double(disk)) : "-"
    }

    private static func perRecord(_ bytes: Int64, _ records: Int) -> String {
        records > 0 ? String(format: "%.1f", Double(bytes) / Double(records)) : "-"
    }
}
