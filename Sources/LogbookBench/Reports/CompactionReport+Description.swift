import Foundation
import Logbook

/// The report as a few readable lines.
package func describeCompaction(_ report: CompactionReport, dryRun: Bool) -> String {
    var lines: [String] = []
    let verb = dryRun ? "would keep" : "kept"
    if report.sealedActiveSegment {
        lines.append(
            "\(dryRun ? "would seal" : "sealed") the active segment first, so its \(report.activeRecords) records (\(report.activeSuperseded) superseded) are compacted too"
        )
    } else if report.activeRecords > 0 {
        lines.append(
            "left the active segment as it is: \(report.activeRecords) records, \(report.activeSuperseded) superseded"
        )
    }
    lines.append(
        "sealed segments: \(report.segmentsBefore) -> \(report.segmentsAfter); records: \(report.recordsBefore) -> \(report.recordsAfter) (\(verb) \(report.recordsAfter), dirty ratio \(String(format: "%.2f", report.dirtyRatio)))"
    )
    lines.append(
        "bytes: \(formatBytes(report.bytesBefore)) -> \(formatBytes(report.bytesAfter))\(dryRun ? " (estimated)" : "")"
    )
    lines.append(
        "live keys: \(report.liveKeys), live tombstones: \(report.tombstones), time: \(String(format: "%.3f", report.seconds)) s (finding winners \(String(format: "%.3f", report.findSeconds)) s)"
    )
    lines.append(
        "winner map: \(formatBytes(Int64(report.winnerMapBytes))), numbering of records and columns: \(formatBytes(Int64(report.numberingBytes))); ties settled in memory: \(report.tiesSettledInMemory), read back from the log: \(report.versionReadBacks)"
    )
    if let reason = report.skippedBecause { lines.append("nothing rewritten: \(reason)") }
    return lines.joined(separator: "\n")
}
