import Foundation
import LogbookCRDT
import LogbookStorage

/// Snapshot bookkeeping, guarded by the Logbook's lock.
struct SnapshotBookkeeping {
    /// Change-record bytes logged since the last snapshot was taken.
    var bytesSinceLast: Int64 = 0
    /// A background snapshot is being written.
    var inFlight = false
    /// Tombstone GC passes rewriting the log: no snapshot may be taken meanwhile, since the
    /// state would hold tombstones the rewritten log no longer does.
    var suspended = 0
    /// The offset of the newest snapshot on disk, loaded or written.
    var lastOffset: UInt64?
    /// Why the last background snapshot failed, if it did.
    var lastFailure: String?
}

extension Logbook {
    /// Writes a snapshot of the replica (records, column versions, tombstones, clock) that
    /// covers every record logged so far, durably (temporary file, fsync, rename), and
    /// removes snapshots beyond `SnapshotPolicy.kept`. Opens then load it and replay only
    /// the log after it. O(state); writers wait only for the O(1) copy of the state.
    ///
    /// Nothing is written when the newest snapshot already covers the log (`written` false).
    /// With `viewCheckpoints` on, the views are checkpointed too, so an open replays them
    /// from about the same offset. Throws `.readOnly` on a read-only instance, and `.failed`
    /// while tombstone GC rewrites.
    @discardableResult
    public func writeSnapshot() throws(LogbookError) -> SnapshotReport {
        let report = try writeReplicaSnapshot()
        if report.written && checkpointsOnClose { try checkpointViews() }
        return report
    }

    /// `writeSnapshot` without the view checkpoints (`close()` writes those itself).
    func writeReplicaSnapshot() throws(LogbookError) -> SnapshotReport {
        snapshotWriting.lock()
        defer { snapshotWriting.unlock() }
        let started = ContinuousClock.now
        defer { metrics.snapshotDuration.record(since: started) }
        var taken = try takeSnapshotState(unlessCovered: true)
        if taken.markNonce == nil {
            let name = ReplicaSnapshotFile.fileName(offset: taken.offset)
            if let existing = try? existingReport(
                directory + "/" + name, name: name, historyId: taken.historyId)
            {
                return existing
            }
            taken = try takeSnapshotState(unlessCovered: false)
        }
        let offset = taken.offset
        // The mark is durable before the snapshot that names it: a power cut must not
        // leave a snapshot past the log's end (it would be set aside, and its state lost).
        if durableOffset < offset { try sync() }
        let name = ReplicaSnapshotFile.fileName(offset: offset)
        let path = directory + "/" + name
        let (bytes, header) = ReplicaSnapshotCodec.encode(
            taken.state, offset: offset, epochId: taken.epochId, identity: log.identity,
            historyId: taken.historyId, markNonce: taken.markNonce ?? 0)
        do throws(StorageError) {
            try fileSystem.replaceFile(path, with: bytes, durable: true)
        } catch {
            throw LogbookError(error)
        }
        locked { snapshots.lastOffset = offset }
        removeSnapshots(except: offset)
        return SnapshotReport(
            file: name, offset: offset, entries: header.entryCount, bytes: Int64(bytes.count),
            digest: header.digest.description, written: true,
            seconds: Double((ContinuousClock.now - started) / .nanoseconds(1)) / 1e9)
    }

    /// What a snapshot is written from, taken under the lock.
    private struct SnapshotState {
        var state: ReplicaState
        var offset: UInt64
        var epochId: UInt64
        var historyId: UInt64
        /// The nonce of the mark logged right before `offset`; nil when none was logged,
        /// because the newest snapshot already covers the log.
        var markNonce: UInt64?
    }

    /// Logs a snapshot mark (`ChangeRecord.snapshotMark`) and copies the state after it;
    /// with `unlessCovered`, logs nothing and copies nothing when the newest snapshot
    /// already covers the log.
    private func takeSnapshotState(unlessCovered: Bool) throws(LogbookError) -> SnapshotState {
        try locked { () throws(LogbookError) -> SnapshotState in
            if let failure { throw failure }
            guard snapshots.suspended == 0 else {
                throw LogbookError(
                    .failed, "tombstone GC is rewriting the log; snapshot after it",
                    path: directory)
            }
            if unlessCovered, snapshots.lastOffset == log.nextOffset {
                return SnapshotState(
                    state: ReplicaState(nodeId: nodeId), offset: log.nextOffset, epochId: 0,
                    historyId: log.history.id, markNonce: nil)
            }
            let nonce = UInt64.random(in: 1 ... .max)
            do throws(StorageError) { try appendSnapshotMark(nonce: nonce) } catch {
                throw fail(error)
            }
            snapshots.bytesSinceLast = 0
            let offset = log.nextOffset
            return SnapshotState(
                state: crdt.copy(), offset: offset, epochId: log.epochId(holding: offset - 1),
                historyId: log.history.id, markNonce: nonce)
        }
    }

    /// Why the last background snapshot failed, or nil when it did not.
    public var lastSnapshotFailure: String? { locked { snapshots.lastFailure } }

    /// The report for a snapshot already on disk, from its header.
    private func existingReport(_ path: String, name: String, historyId: UInt64) throws
        -> SnapshotReport
    {
        let file = try fileSystem.open(path, mode: .read)
        defer { try? file.close() }
        let size = try file.size()
        let bytes = try file.read(at: 0, count: ReplicaSnapshotFile.headerSize)
        let header = try bytes.withUnsafeBytes { try ReplicaSnapshotFile.decodeHeader($0).get() }
        // One of another format, log or history at the same offset is replaced, not kept.
        guard header.identity == log.identity, header.historyId == historyId else {
            throw CheckpointRejection("not of this log and history")
        }
        return SnapshotReport(
            file: name, offset: header.offset, entries: header.entryCount, bytes: size,
            digest: header.digest.description, written: false, seconds: 0)
    }

    /// Removes every snapshot but the one at `offset` and the `kept − 1` newest below it
    /// (one above it belongs to a log this one is not). Best effort: a file left behind is
    /// removed by the next snapshot, and opening checks every file anyway.
    private func removeSnapshots(except offset: UInt64) {
        let older = Self.snapshotFiles(directory: directory, fileSystem: fileSystem)
            .filter { $0.offset != offset }
        let keptBelow = older.filter { $0.offset < offset }.prefix(max(0, snapshotPolicy.kept - 1))
        for file in older where !keptBelow.contains(where: { $0.offset == file.offset }) {
            try? fileSystem.removeFile(directory + "/" + file.name)
        }
    }

    /// Snapshot files in `directory`, newest (highest offset) first.
    static func snapshotFiles(directory: String, fileSystem: any FileSystem) -> [(
        name: String, offset: UInt64
    )] {
        let names = (try? fileSystem.contentsOfDirectory(directory)) ?? []
        return names.compactMap { name in
            ReplicaSnapshotFile.offset(ofFileName: name).map { (name, $0) }
        }.sorted { $0.offset > $1.offset }
    }

    /// With the lock held, after each logged write: whether a background snapshot is due
    /// (`SnapshotPolicy.everyLogBytes` were logged since the last and none is running), and
    /// if so marks it in flight; the write then calls `startClaimedSnapshot()` outside the
    /// lock. Asked under the write's own lock, so a write takes the lock once.
    func claimSnapshotIfDue() -> Bool {
        guard let every = snapshotPolicy.everyLogBytes, !hasFailed, !snapshots.inFlight,
            snapshots.suspended == 0, snapshots.bytesSinceLast >= every
        else { return false }
        snapshots.inFlight = true
        return true
    }

    /// Writes the snapshot `claimSnapshotIfDue()` claimed, on a thread of its own.
    func startClaimedSnapshot() {
        // A thread of its own: the work is O(state) and blocking, kept off the task pool.
        Thread.startNamed("logbook-snap") { [self] in
            var snapshotFailure: String?
            do { try writeSnapshot() } catch {
                snapshotFailure = "\(error)"
            }
            locked {
                snapshots.inFlight = false
                // An instance that failed or closed meanwhile refuses snapshots: that is its
                // own failure, not a snapshot's.
                guard failure == nil else { return }
                if snapshotFailure != nil { metrics.snapshotFailures.increment() }
                snapshots.lastFailure = snapshotFailure
            }
        }
    }

    /// Runs `body` (a tombstone GC rewrite) with snapshots removed and none taken: a
    /// snapshot holds the tombstones the rewrite drops, so after it the log alone is the
    /// truth until the next snapshot. Waits for a snapshot being written.
    func withSnapshotsSuspended<R>(_ body: () throws(LogbookError) -> R) throws(LogbookError) -> R {
        snapshotWriting.lock()
        // The new history is durable before any snapshot goes and any record is rewritten:
        // a snapshot of the state before, copied back or left behind by a failed removal,
        // then names an earlier history and is set aside instead of loaded.
        var removal: StorageError? = locked { () -> StorageError? in
            snapshots.suspended += 1
            snapshots.lastOffset = nil
            do throws(StorageError) { try log.beginHistory() } catch { return error }
            return nil
        }
        for file in Self.snapshotFiles(directory: directory, fileSystem: fileSystem)
        where removal == nil {
            do throws(StorageError) {
                try fileSystem.removeFile(directory + "/" + file.name)
            } catch {
                removal = removal ?? error
            }
        }
        if removal == nil {
            do throws(StorageError) { try fileSystem.syncDirectory(directory) } catch {
                removal = error
            }
        }
        snapshotWriting.unlock()
        defer { locked { snapshots.suspended -= 1 } }
        if let removal { throw LogbookError(removal) }
        return try body()
    }
}
