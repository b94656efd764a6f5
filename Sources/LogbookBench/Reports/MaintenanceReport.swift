import Foundation
import Logbook

/// `logbook compact DIR`: what the compaction found and did (`CompactionReport`'s
/// properties under `compaction`).
package struct CompactReport: CommandReport {
    package let command = "compact"
    package var directory: String
    package var dryRun: Bool
    package var compaction: CompactionReport

    package init(directory: String, dryRun: Bool, compaction: CompactionReport) {
        self.directory = directory
        self.dryRun = dryRun
        self.compaction = compaction
    }

    package var text: String { describeCompaction(compaction, dryRun: dryRun) }
}

/// `logbook gc DIR`: what tombstone GC found and did (`TombstoneCollectionReport`'s
/// properties under `collection`).
package struct CollectReport: CommandReport {
    package let command = "gc"
    package var directory: String
    package var dryRun: Bool
    package var collection: TombstoneCollectionReport

    package init(directory: String, dryRun: Bool, collection: TombstoneCollectionReport) {
        self.directory = directory
        self.dryRun = dryRun
        self.collection = collection
    }

    package var text: String {
        let report = collection
        let peers =
            report.registeredPeers.isEmpty
            ? "none (standalone)" : report.registeredPeers.map(String.init).joined(separator: ", ")
        var lines = ["registered peers: \(peers)"]
        if let reason = report.blockedBecause { lines.append("blocked: \(reason)") }
        lines.append(
            "frontier: acknowledged below \(report.acknowledgedBelow), retained below \(report.retainedBelow)"
        )
        let verb = dryRun ? "would collect" : "collected"
        lines.append(
            "tombstones: \(report.tombstonesBefore) -> \(report.tombstonesAfter) (\(verb) \(report.collected); \(report.waitingForRetention) wait for the retention time)"
        )
        lines.append(
            "records removed: \(report.recordsRemoved) in \(report.segmentsRewritten) segments; bytes: \(formatBytes(report.bytesBefore)) -> \(formatBytes(report.bytesAfter))"
        )
        lines.append(
            "fenced records: \(report.fenced) (\(report.unfenced) unfenced); history starts at \(report.historyStart); time: \(String(format: "%.3f", report.seconds)) s"
        )
        return lines.joined(separator: "\n")
    }
}
