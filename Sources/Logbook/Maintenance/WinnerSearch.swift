import Foundation
import LogbookStorage

/// Compaction's pass 1 on several threads: each reads the whole log with its own cursor and
/// keeps the winners of a share of the records (split by the record id's hash), so the
/// table work — most of pass 1 — divides among the cores while reading and decoding are
/// repeated. The shares' dead-record bitsets are then merged into one `LiveSet`.
struct WinnerSearch {
    /// The merged set, finished.
    var live: LiveSet
    /// Records read per run of `runs`.
    var recordsPerRun: [Int]

    /// Runs pass 1 over `cursors`, one thread per cursor (made at one moment, from the
    /// same offset).
    init(
        _ logbook: Logbook, cursors: [LogCursor], runs: [SegmentRun]
    ) throws(LogbookError) {
        precondition(!cursors.isEmpty, "at least one cursor")
        let origin = min(cursors[0].startOffset, runs.first?.baseOffset ?? 0)
        let seeds = KeyNumbering.Seeds.random()
        let handedOut = CursorsByThread(cursors: cursors)
        let search = { @Sendable (share: Int) throws(LogbookError) -> FinishedShare in
            try Self.searchShare(
                share, of: handedOut.cursors.count, cursor: handedOut.cursors[share],
                logbook: logbook, origin: origin, runs: runs, seeds: seeds)
        }
        let outcomes =
            cursors.count == 1
            ? [Result { () throws(LogbookError) in try search(0) }]
            : ConcurrentJobs.dispatch(width: cursors.count).map(cursors.count, search)
        var merged: FinishedShare?
        for outcome in outcomes {
            let share = try outcome.get()
            if merged == nil { merged = share } else { merged?.live.absorb(share.live) }
        }
        guard let merged else { preconditionFailure("no share searched") }
        live = merged.live
        recordsPerRun = merged.recordsPerRun
    }

    /// One thread's share: its records' winners; share 0 also counts records per run.
    private static func searchShare(
        _ share: Int, of shareCount: Int, cursor: LogCursor, logbook: Logbook, origin: UInt64,
        runs: [SegmentRun], seeds: KeyNumbering.Seeds
    ) throws(LogbookError) -> FinishedShare {
        let base = runs.first?.baseOffset ?? 0
        let readBack = LoggedVersionReader { (offset) throws(LogbookError) in
            try logbook.maintenanceCursor(from: offset)
        }
        var live = LiveSet(
            origin: origin, base: base, sealedEnd: runs.last?.endOffset ?? base,
            shard: share, of: shareCount, recordSeeds: seeds,
            loggedVersions: readBack.versions(at:))
        var recordsPerRun = [Int](repeating: 0, count: share == 0 ? runs.count : 0)
        var runIndex = 0
        try Compactor.forEachKey(cursor) { (offset, key) throws(LogbookError) in
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
