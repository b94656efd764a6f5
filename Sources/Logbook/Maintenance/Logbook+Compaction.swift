import LogbookStorage

// The engine's side of compaction and tombstone GC: one maintenance pass at a time, the
// sealed segments and cursors as of one moment, sealing the active segment, and swapping
// rewritten runs in under the lock.
extension Logbook {
    /// Compacts the sealed segments: keeps every (record, column)'s CRDT winner and live
    /// tombstones, drops what they supersede, merges small neighbouring segments; see
    /// `Compactor` and docs/maintenance.md. Appends continue while it runs; only the final
    /// swap of each rewritten run takes the lock. One compaction at a time per instance.
    ///
    /// Durability: every rewritten segment is fsynced and swapped in with directory fsyncs;
    /// a crash at any point leaves a log that opens to the same state.
    public func compact(_ options: CompactionOptions = CompactionOptions()) throws(LogbookError)
        -> CompactionReport
    {
        let started = ContinuousClock.now
        defer { metrics.compactionDuration.record(since: started) }
        return try maintaining(readsOnly: options.dryRun) { () throws(LogbookError) in
            try Compactor.compact(self, options: options)
        }
    }

    /// Flushes and seals the active segment (when it holds anything), so compaction and GC,
    /// which rewrite only sealed segments, reach everything logged so far.
    ///
    /// A seal that fails once the active segment is synced (no room for its index, the next
    /// segment or the manifest) throws, and leaves the instance writable: maintenance must
    /// never stop writes (issue 60, class 4). Only a failed flush or sync fails the instance.
    public func sealActiveSegment() throws(LogbookError) {
        try locked { () throws(LogbookError) in
            if let failure { throw failure }
            try sealLeavingWritable()
        }
    }

    /// Called with the lock held: seals the active segment; see `sealActiveSegment()`.
    func sealLeavingWritable() throws(LogbookError) {
        let harmless: StorageError?
        // The seal flushes and syncs the active segment itself.
        do throws(StorageError) {
            harmless = try log.sealActiveSegmentLeavingItWritable()
        } catch {
            throw fail(error)
        }
        if let harmless {
            metrics.sealFailures.increment()
            throw LogbookError(
                .failed, "the active segment was not sealed (writes go on): \(harmless)",
                path: directory, storageError: harmless)
        }
    }

    /// Runs `body` as the instance's one maintenance pass (compaction or GC). A pass that
    /// writes nothing (`readsOnly`, a dry run) may run on a read-only instance.
    func maintaining<R>(readsOnly: Bool = false, _ body: () throws(LogbookError) -> R)
        throws(LogbookError) -> R
    {
        try locked { () throws(LogbookError) in
            if let failure, !(readsOnly && failure.code == .readOnly) { throw failure }
            guard !isMaintaining else {
                throw LogbookError(
                    .failed, "a compaction or tombstone GC is already running", path: directory)
            }
            isMaintaining = true
        }
        defer { locked { isMaintaining = false } }
        return try body()
    }

    /// Under the lock: a cursor over the whole log (pending batch flushed) and the sealed
    /// segments as runs of one, with what a rewrite needs.
    func snapshotForCompaction() throws(LogbookError) -> (
        LogCursor, [SegmentRun], String, any FileSystem, LogConfiguration
    ) {
        let (cursors, runs, directory, fileSystem, configuration) =
            try snapshotForCompaction(cursors: 1)
        return (cursors[0], runs, directory, fileSystem, configuration)
    }

    /// The sealed segments and `count` cursors over the whole log, all as of one moment.
    func snapshotForCompaction(cursors count: Int) throws(LogbookError) -> (
        [LogCursor], [SegmentRun], String, any FileSystem, LogConfiguration
    ) {
        precondition(count > 0, "at least one cursor")
        return try locked { () throws(LogbookError) in
            do throws(StorageError) {
                var cursors: [LogCursor] = []
                for _ in 0..<count { cursors.append(try log.makeCursor(from: log.startOffset)) }
                let runs = log.sealedSegments.indices.map { log.sealedRun($0..<($0 + 1)) }
                return (cursors, runs, log.directory, fileSystem, logConfiguration)
            } catch {
                throw fail(error)
            }
        }
    }

    /// The active segment's offsets: what it holds, accepted or still pending.
    func activeSegmentSpan() -> Range<UInt64> {
        locked { log.activeBaseOffset..<max(log.activeBaseOffset, log.nextOffset) }
    }

    /// Seals the active segment for a compaction whose sealed segments were `runs`, and
    /// returns it as the run it became; nil when it held nothing, or when the segments
    /// changed since `runs` were taken (a roll meanwhile: the pass then leaves it alone).
    func sealActiveSegment(after runs: [SegmentRun]) throws(LogbookError) -> SegmentRun? {
        try locked { () throws(LogbookError) -> SegmentRun? in
            guard log.sealedSegments.count == runs.count else { return nil }
            try sealLeavingWritable()
            let count = log.sealedSegments.count
            return count == runs.count + 1 ? log.sealedRun((count - 1)..<count) : nil
        }
    }

    /// A cursor from `offset` (compaction reads single changes back with it).
    func maintenanceCursor(from offset: UInt64) throws(LogbookError) -> LogCursor {
        try locked { () throws(LogbookError) in
            do throws(StorageError) { return try log.makeCursor(from: offset) } catch {
                throw fail(error)
            }
        }
    }

    /// Under the lock: swaps a rewritten run in.
    func installCompacted(_ rewritten: RewrittenRun) throws(LogbookError) {
        try locked { () throws(LogbookError) in
            do throws(StorageError) { try log.installRewrite(rewritten) } catch {
                throw fail(error)
            }
        }
    }
}
