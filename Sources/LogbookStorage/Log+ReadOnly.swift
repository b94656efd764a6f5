extension Log {
    /// Opens the log in `directory` for reading only: nothing in the directory changes, and
    /// a writer in another process may go on writing, compacting and collecting beside it.
    ///
    /// Recovery checks what a writable open checks and reports what it would do, without
    /// doing it: a torn tail of the active segment is reported and read around (not cut); a
    /// missing or stale index is rebuilt in memory; leftover temporary files stay; the
    /// manifest is checked, not written. Appending, syncing, sealing and rewriting throw
    /// `.readOnly`. Works on a read-only directory or mount.
    ///
    /// Beside a writer: the reader takes no lock, so it never blocks the writer. It keeps
    /// every file it read open (`PinnedFileSystem`), so a segment the writer's compaction
    /// replaces or removes afterwards is still read as it was; it serves the active segment
    /// only up to the writer's durable mark (`DurableMark`), never batches that are written
    /// but not yet synced; and when the directory changed while it was being read (a roll,
    /// a compaction's swap), or a swap is half done, it reads it again, up to
    /// `Limits.readBesideWriterAttemptsMax` times. What it serves is then the log as it
    /// stood at one moment: a prefix of what the writer acknowledged, in order.
    ///
    /// Without a writer, a log with an interrupted compaction swap (a `.seg.swap` file) is
    /// refused with `.readOnly`: only a writer may finish or set it aside.
    ///
    /// Throws `.notFound` for a directory without segments, `.corruption` as `open` does,
    /// `.inUse` when the directory kept changing under every attempt.
    public static func openReadOnly(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        configuration: LogConfiguration = LogConfiguration()
    ) throws(StorageError) -> Log {
        try configuration.validate()
        guard fileSystem.exists(directory) else {
            throw StorageError(.notFound, "no log directory", path: directory)
        }
        var attempt = 0
        while true {
            let writing = fileSystem.directoryHasWriter(directory)
            let pinned = PinnedFileSystem(base: fileSystem, directory: directory)
            do {
                let log = try readOnlyLog(
                    directory, pinned, configuration: configuration, besideWriter: writing)
                // Read without a writer's mark while one started: read again with it.
                if pinned.isUnchanged() && (writing || !fileSystem.directoryHasWriter(directory)) {
                    return log
                }
            } catch {
                // A writer beside us explains a failure that another look may not find.
                let explained = writing || fileSystem.directoryHasWriter(directory)
                guard explained, attempt + 1 < Limits.readBesideWriterAttemptsMax else {
                    throw error
                }
            }
            attempt += 1
            guard attempt < Limits.readBesideWriterAttemptsMax else {
                throw StorageError(
                    .inUse,
                    "a writer changed the log's segments while each of \(attempt) reads of them "
                        + "ran; try again", path: directory)
            }
            // 1, 2, 4 … ms, then 50 ms a try: a roll or a swap takes a few syncs.
            Platform.pause(microseconds: UInt32(min(1 << min(attempt, 6), 50)) * 1000)
        }
    }

    /// One read of the directory through `pinned`.
    private static func readOnlyLog(
        _ directory: String, _ pinned: PinnedFileSystem, configuration: LogConfiguration,
        besideWriter: Bool
    ) throws(StorageError) -> Log {
        var visibleEnd: UInt64?
        if besideWriter {
            // Read before any segment: whatever the mark says was synced before it was
            // written, so the segments read after it hold at least that much. No mark to
            // trust: the sealed segments only (every roll synced them).
            var identity = configuration.identity
            if identity == nil {
                identity = try SegmentManifest.read(directory: directory, fileSystem: pinned)?
                    .identity
            }
            visibleEnd =
                identity.flatMap {
                    DurableMark.read(directory: directory, identity: $0, fileSystem: pinned)
                } ?? 0
        }
        let outcome = try SegmentRecovery.recover(
            directory: directory, fileSystem: pinned, configuration: configuration,
            clock: nil, readOnly: true, visibleEnd: visibleEnd)
        return Log(
            directory: directory, fileSystem: pinned, configuration: configuration,
            clock: nil, sealed: outcome.sealed, active: outcome.active, recovery: outcome.report,
            epochs: try LogEpochs.read(directory: directory, fileSystem: pinned),
            chain: outcome.chain, history: outcome.history, isReadOnly: true)
    }

    /// Moves a log opened read-only to the directory as it is now: reads it again as
    /// `openReadOnly` does and takes what it finds. Cursors made before go on reading what
    /// they were made on. Returns where the log ended before and whether its history changed
    /// (a tombstone GC ran: what was read before may hold records the log no longer replays
    /// to, so a reader of its state must replay from the start).
    ///
    /// Throws `.invalidArgument` for a writable log, `.corruption` when the directory now
    /// holds another log, and what `openReadOnly` throws.
    public func refreshReadOnly() throws(StorageError) -> LogRefresh {
        guard isReadOnly, let pinned = fileSystem as? PinnedFileSystem else {
            throw StorageError(
                .invalidArgument, "only a log opened read-only is refreshed", path: directory)
        }
        let fresh = try Log.openReadOnly(
            directory: directory, fileSystem: pinned.base, configuration: configuration)
        guard fresh.identity == identity else {
            throw StorageError(
                .corruption,
                "the directory now holds log \(fresh.identity), not \(identity), which was open",
                path: directory)
        }
        let refresh = LogRefresh(
            previousEnd: nextOffset, end: fresh.nextOffset,
            historyChanged: fresh.history != history || fresh.nextOffset < nextOffset)
        fileSystem = fresh.fileSystem
        sealed = fresh.sealed
        active = fresh.active
        epochs = fresh.epochs
        markedEpochs = []
        chain = fresh.chain
        history = fresh.history
        appending = fresh.appending
        flushedOffset = fresh.flushedOffset
        durableOffset = fresh.durableOffset
        fresh.isClosed = true  // its files are ours now
        return refresh
    }
}

/// What `Log.refreshReadOnly()` found.
public struct LogRefresh: Hashable, Sendable {
    /// Where the log ended before the refresh.
    public var previousEnd: UInt64
    /// Where it ends now.
    public var end: UInt64
    /// True when the log's history is another one now (a tombstone GC began it), or its end
    /// went back: what was read before is no prefix of the log any more.
    public var historyChanged: Bool
}
