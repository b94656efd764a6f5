import Foundation
import Logbook
import LogbookStorage
import LogbookWorkloads

/// Part 2 of the demo: the standard workload written to a durable log, which is closed,
/// reopened from its snapshot and again by replaying the whole log, compared by digest each
/// time, then compacted.
struct DemoDurableLog {
    let directory: String
    let records: Int
    let changes: Int
    let narrate: (String) -> Void

    func run() async throws {
        try DemoDirectory.replace(directory)
        narrate(
            "\n== A durable log: \(formatCount(Double(changes))) changes of the standard workload into \(directory)/"
        )
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 4 * 1024 * 1024  // several segments, so compaction has work
        options.snapshots.onCloseAfterBytes = 0  // a snapshot at close however small the log
        let (digest, size) = try await write(options)

        try narrateSnapshotOpen(options, digest: digest)
        // The whole log replayed this time, to show the rate a snapshot saves.
        var replayingAll = options
        replayingAll.snapshots.loadAtOpen = false
        let reopened = try Logbook.open(directory: directory, options: replayingAll)
        do {
            try verifyAndCompact(reopened, digest: digest, size: size)
        } catch {
            try? reopened.close()  // already failing: the first error is the one to report
            throw error
        }
        try reopened.close()
        narrate("\nnext: logbook inspect \(directory); logbook export \(directory) | head")
    }

    /// Opens from the snapshot the close wrote, which replays only the log after it.
    private func narrateSnapshotOpen(_ options: LogbookOptions, digest: StateDigest) throws {
        let reopened = try Logbook.open(directory: directory, options: options)
        let load = reopened.snapshotLoad
        let same = reopened.stateDigest() == digest
        try reopened.close()
        guard let file = load.file else {
            narrate(
                "reopened: no snapshot loaded" + load.setAside.map { "; set aside: \($0)" }.joined()
            )
            return
        }
        narrate(
            "reopened from the snapshot the close wrote (\(file), \(load.entries) entries) in \(String(format: "%.3f", load.seconds)) s, then replayed \(reopened.replayStatistics.changes) changes after it; digest \(same ? "the same" : "DIFFERENT")"
        )
        guard same else { throw DemoError.diverged("the log before closing and its snapshot") }
    }

    /// Checks the replayed state against the written one, then compacts and checks again.
    private func verifyAndCompact(_ reopened: Logbook, digest: StateDigest, size: Int64) throws {
        let statistics = reopened.replayStatistics
        let seconds = max(statistics.seconds, 1e-9)  // a rate, never a division by zero
        narrate(
            "reopened without it: replayed \(statistics.changes) changes in \(String(format: "%.3f", statistics.seconds)) s: \(formatCount(Double(statistics.changes) / seconds)) changes/s, \(formatBytes(Int64(Double(statistics.rawBytes) / seconds)))/s raw"
        )
        narrate(
            "state: \(reopened.records().count) live records, \(reopened.tombstoneCount()) tombstones"
        )
        let same = reopened.stateDigest() == digest
        narrate(
            "digest after replay: \(reopened.stateDigest()) (\(same ? "same as before closing" : "DIFFERENT"))"
        )
        guard same else { throw DemoError.diverged("the log before closing and after replay") }

        narrate("\n== Compaction: keep each column's winner and live tombstones, drop the rest")
        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        let report = try reopened.compact(compaction)
        narrate(describeCompaction(report, dryRun: false))
        let compactedDigest = reopened.stateDigest()
        narrate(
            "log on disk: \(formatBytes(size)) -> \(formatBytes(reopened.sizeBytes)); digest \(compactedDigest == digest ? "unchanged" : "CHANGED")"
        )
        guard compactedDigest == digest else {
            throw DemoError.diverged("the log before and after compaction")
        }
    }

    /// Writes the workload and closes the log; returns its digest and size.
    private func write(_ options: LogbookOptions) async throws -> (digest: StateDigest, size: Int64)
    {
        let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
        var workload = StandardWorkload(recordCount: records, seed: 42)
        let started = ContinuousClock.now
        let written = try await runStandardWorkload(
            on: logbook, workload: &workload, changeCount: changes)
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        let digest = logbook.stateDigest()
        let size = logbook.sizeBytes
        narrate(
            "wrote \(written) changes in \(String(format: "%.2f", seconds)) s: \(formatCount(Double(written) / seconds)) changes/s"
        )
        narrate(
            "on disk: \(formatBytes(size)) in \(logbook.segmentCount) segments, \(String(format: "%.1f", Double(size) / Double(max(1, written)))) bytes per change"
        )
        try logbook.close()
        return (digest, size)
    }
}
