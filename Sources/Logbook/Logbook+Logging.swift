import LogbookCRDT
import LogbookStorage

// How the engine logs what a write or merge made: under the lock, each accepted change
// encoded where it lies into the log, the clock after it, the views told; then the wait for
// the durability mode's promise.
extension Logbook {
    /// Runs `operation` under the lock: a merge, answering with its batch and which of it
    /// was accepted, or a local write, answering with its changes (all accepted, `nil`).
    /// Appends each accepted change straight from where it lies, with its new local version:
    /// no change is copied unless a view takes it. Then waits for the durability mode's
    /// promise. `together`: the changes go into one batch of the log (`Log.appendTogether`),
    /// kept whole or not at all by recovery, as a transaction's are.
    ///
    /// Inlined into each write, so that a write awaits (and has an async frame of its own
    /// beyond its caller's) only under group commit: each frame is a task allocation and a
    /// free, about 170 instructions of a one-change write.
    @inline(__always)
    nonisolated(nonsending) func logged(
        together: Bool = false,
        _ operation: (ReplicaState) throws(LogbookError) -> (
            batch: [Change<String, String, Value>], acceptance: AcceptedChanges?
        )
    ) async throws(LogbookError) -> MergedChanges {
        let merged = try logUnderLock(together: together, operation)
        if let committer { try await waitUntilDurable(merged.offsets.upperBound, committer) }
        if merged.isQueuedForObservers { observers.deliver(through: merged.offsets.upperBound) }
        return merged
    }

    /// `logged(_:)` up to its wait: the operation and its appends under the lock, the
    /// metrics, and a snapshot started when one is due. Inlined into each write: called,
    /// a one-call write cost about 200 instructions more (the operation passed as a closure,
    /// its result's optional acceptance destroyed through the type's metadata).
    @inline(__always)
    func logUnderLock(
        together: Bool = false,
        _ operation: (ReplicaState) throws(LogbookError) -> (
            batch: [Change<String, String, Value>], acceptance: AcceptedChanges?
        )
    ) throws(LogbookError) -> MergedChanges {
        let (merged, snapshotDue) = try locked {
            () throws(LogbookError) -> (MergedChanges, Bool) in
            if hasFailed, let failure { throw failure }
            let (batch, acceptance) = try operation(crdt)
            var merged = MergedChanges(batch: batch, acceptance: acceptance, offsets: 0..<0)
            do throws(StorageError) {
                // The offsets come from the appends themselves, not from further reads of
                // the log's next offset.
                var offsets = try appendAccepted(batch, acceptance, together: together)
                let clock = crdt.getClock().currentTime()
                if clock > loggedClock {
                    offsets = offsets.lowerBound..<(try append(.clock(clock)).upperBound)
                }
                if durability == .fsyncEachAppend { try log.sync() }
                merged.offsets = offsets
                if observers.isObserved, merged.acceptedCount > 0 {
                    observers.enqueue(merged)
                    merged.isQueuedForObservers = true
                }
            } catch {
                throw fail(error)
            }
            return (merged, claimSnapshotIfDue())
        }
        metrics.appendedChanges.increment(by: Int64(merged.acceptedCount))
        if snapshotDue { startClaimedSnapshot() }
        return merged
    }

    /// Group commit's promise: returns once the records through `offset` are synced. A
    /// failed sync fails the instance, as a failed append does: the state in memory holds
    /// changes the log may not, and `writeFailure` (readiness, `/status`, the node's
    /// healing) must say so.
    nonisolated(nonsending) func waitUntilDurable(
        _ offset: UInt64, _ committer: GroupCommitter
    ) async throws(LogbookError) {
        do { try await committer.waitUntilDurable(offset) } catch {
            let storageError = error as? StorageError
            if let storageError { _ = locked { fail(storageError) } }
            throw LogbookError(
                .failed, "group commit sync failed", path: directory, storageError: storageError)
        }
    }

    /// Called with the lock held: logs the clock as it is now.
    func appendClock() throws(StorageError) {
        try append(.clock(crdt.getClock().currentTime()))
    }

    /// Called with the lock held: logs a snapshot mark (`ChangeRecord.snapshotMark`) at the
    /// clock as it is now.
    func appendSnapshotMark(nonce: UInt64) throws(StorageError) {
        try append(.snapshotMark(time: crdt.getClock().currentTime(), nonce: nonce))
    }

    /// Called with the lock held. Returns the offset the record took, as a range of one.
    @discardableResult
    private func append(_ record: ChangeRecord) throws(StorageError) -> Range<UInt64> {
        try appendRecords(
            count: 1, describedBy: { _ in (ChangeRecordCodec.size(of: record), record.version) },
            writtenBy: { _, pointer in ChangeRecordCodec.write(record, to: pointer) })
    }

    /// Logs the accepted changes of `batch` (all of them at their own local versions when
    /// `acceptance` is nil) in one call to the log, and hands them to the views: each change
    /// is encoded where it lies, and copied only when a view takes it. Called with the lock
    /// held. Returns the offsets the records took (empty, at the log's end, for none).
    private func appendAccepted(
        _ batch: [Change<String, String, Value>], _ acceptance: AcceptedChanges?,
        together: Bool
    ) throws(StorageError) -> Range<UInt64> {
        // Each change is read where it lies, by the codec's inlined size and write: a copy
        // (its strings retained and released) for each of the two showed in profiles.
        let offsets = try batch.withUnsafeBufferPointer { changes throws(StorageError) in
            // The accepted change at `index`: its place in `batch` and its local version.
            func accepted(_ index: Int) -> (position: Int, version: UInt64) {
                guard let acceptance else { return (index, changes[index].localDbVersion) }
                return (acceptance.positions[index], acceptance.localDbVersions[index])
            }
            return try appendRecords(
                count: acceptance?.positions.count ?? changes.count, together: together,
                describedBy: { index in
                    let (position, version) = accepted(index)
                    let size = ChangeRecordCodec.size(
                        of: changes[position], localDbVersion: version)
                    return (size, version)
                },
                writtenBy: { index, pointer in
                    let (position, version) = accepted(index)
                    return ChangeRecordCodec.write(
                        changes[position], localDbVersion: version, to: pointer)
                })
        }
        guard !views.isEmpty else { return offsets }
        // `accepted` spelled again rather than this loop moved into the closure above: moved,
        // one-call appends measured 0.74 / 0.80 M changes/s against 0.99 / 1.01 M.
        for (index, offset) in offsets.enumerated() {
            var change = batch[acceptance?.positions[index] ?? index]
            if let acceptance { change.localDbVersion = acceptance.localDbVersions[index] }
            for view in views { view.apply(change, at: offset) }
        }
        return offsets
    }

    /// Appends the `count` records `describe` sizes and `write` writes (`Log.append(count:
    /// describedBy:writtenBy:)`), and counts them into the logged clock and the bytes since
    /// the last snapshot. Called with the lock held.
    private func appendRecords(
        count: Int, together: Bool = false,
        describedBy describe: (Int) -> (byteCount: Int, version: UInt64),
        writtenBy write: (Int, UnsafeMutableRawPointer) -> Int
    ) throws(StorageError) -> Range<UInt64> {
        var highest: UInt64 = 0
        var bytes = 0
        func counted(_ index: Int) -> (byteCount: Int, version: UInt64) {
            let record = describe(index)
            highest = max(highest, record.version)
            bytes += record.byteCount
            return record
        }
        let offsets =
            together
            ? try log.appendTogether(count: count, describedBy: counted, writtenBy: write)
            : try log.append(count: count, describedBy: counted, writtenBy: write)
        loggedClock = max(loggedClock, highest)
        snapshots.bytesSinceLast += Int64(bytes)
        return offsets
    }

    /// Called with the lock held: remembers the first failure, which poisons the instance.
    func fail(_ error: StorageError) -> LogbookError {
        let wrapped = LogbookError(error)
        if failure == nil {
            failure = LogbookError(
                .failed, "an earlier write failed; reopen to recover", path: directory,
                storageError: error)
        }
        return wrapped
    }
}
