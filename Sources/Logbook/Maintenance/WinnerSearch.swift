import Foundation
import LogbookStorage

/// Compaction's pass 1 on several threads: each reads the whole log with its own cursor and
/// keeps the winners of a share of the records (split by the record id's hash), so the
/// table work — most of pass 1 — divides among the cores while reading and decoding are
/// repeated. The shares' dead-record bitsets are merged, and their counts summed.
struct WinnerSearch {
    /// What the rewrite may drop, over all shares.
    var dead: DeadRecords
    /// Records read per run of `runs`.
    var recordsPerRun: [Int] = []
    /// Live (record, column) keys.
    var liveKeys = 0
    /// Live tombstones.
    var tombstones = 0
    /// Bytes of the shares' winner tables.
    var winnerMapBytes = 0
    /// Bytes of the shares' numberings of records and columns.
    var numberingBytes = 0
    /// Ties settled by reading the winner back from the log.
    var versionReadBacks = 0
    /// Ties settled from the versions of recent changes.
    var tiesSettledInMemory = 0

    /// Runs pass 1 over `cursors`, one thread per cursor (made at one moment, from the
    /// same offset), marking dead records among the sealed `runs` and, when given, the
    /// active segment's `active` offsets too (which a rewrite may reach once it is sealed).
    init(
        _ logbook: Logbook, cursors: [LogCursor], runs: [SegmentRun],
        active: Range<UInt64>? = nil, bytesPerSecondMax: Int64? = nil,
        recentVersionsKept: Int = CompactionOptions().recentVersionsKept,
        progress: MaintenanceProgress? = nil
    ) throws(LogbookError) {
        precondition(!cursors.isEmpty, "at least one cursor")
        let base = runs.first?.baseOffset ?? active?.lowerBound ?? 0
        let end = max(runs.last?.endOffset ?? base, active?.upperBound ?? base)
        let origin = min(cursors[0].startOffset, base)
        let seeds = KeyNumbering.Seeds.random()
        let handedOut = CursorsByThread(cursors: cursors)
        let outcomes = ConcurrentJobs.dispatch(width: cursors.count).map(cursors.count) {
            (share) throws(LogbookError) -> FinishedShare in
            try Self.searchShare(
                share, of: handedOut.cursors.count, cursor: handedOut.cursors[share],
                logbook: logbook, origin: origin, range: base..<end, runs: runs, seeds: seeds,
                bytesPerSecondMax: bytesPerSecondMax, recentVersionsKept: recentVersionsKept,
                progress: share == 0 ? progress : nil)
        }
        dead = DeadRecords(base: base, sealedEnd: end)
        for (index, outcome) in outcomes.enumerated() {
            let share = try outcome.get()
            let live = share.live
            dead.formUnion(live.deadRecords)
            if index == 0 { recordsPerRun = share.recordsPerRun }
            liveKeys += live.liveKeyCount
            tombstones += live.tombstoneCount
            winnerMapBytes += live.winnerMapBytes
            numberingBytes += live.numberingBytes
            versionReadBacks += live.versionReadBacks
            tiesSettledInMemory += live.tiesSettledInMemory
        }
    }

    /// One thread's share: its records' winners; share 0 also counts records per run.
    private static func searchShare(
        _ share: Int, of shareCount: Int, cursor: LogCursor, logbook: Logbook, origin: UInt64,
        range: Range<UInt64>, runs: [SegmentRun], seeds: KeyNumbering.Seeds,
        bytesPerSecondMax: Int64?, recentVersionsKept: Int, progress: MaintenanceProgress?
    ) throws(LogbookError) -> FinishedShare {
        let readBack = LoggedVersionReader { (offset) throws(LogbookError) in
            try logbook.maintenanceCursor(from: offset)
        }
        var live = LiveSet(
            origin: origin, base: range.lowerBound, sealedEnd: range.upperBound,
            shard: share, of: shareCount, recordSeeds: seeds,
            recentCapacity: recentVersionsKept, loggedVersions: readBack.versions(at:))
        var recordsPerRun = [Int](repeating: 0, count: share == 0 ? runs.count : 0)
        var runIndex = 0
        // Every thread reads the whole log; the first one's position stands for all.
        try Compactor.forEachKey(
            cursor, bytesPerSecondMax: bytesPerSecondMax, progress: progress,
            span: origin..<range.upperBound  // origin ≤ base ≤ upperBound
        ) { (offset, key) throws(LogbookError) in
            try live.note(key, at: offset)
            guard share == 0 else { return }
            while runIndex < runs.count && offset >= runs[runIndex].endOffset { runIndex += 1 }
            if runIndex < runs.count && offset >= runs[runIndex].baseOffset {
                recordsPerRun[runIndex] += 1
            }
        }
        try live.finish()
        return FinishedShare(live: live, recordsPerRun: recordsPerRun)
    }
}

/// The cursors, one per thread: cursor `share` is used only by thread `share`.
private struct CursorsByThread: @unchecked Sendable {
    let cursors: [LogCursor]
}

/// One share's finished set, handed from the thread that built it to the caller once that
/// thread is done (its tables are never touched by two threads at a time).
private struct FinishedShare: @unchecked Sendable {
    var live: LiveSet
    var recordsPerRun: [Int]
}
