import LogbookCRDT
import LogbookStorage

extension Logbook {
    /// For a Logbook opened read-only (`LogbookOptions.readOnly`): moves its state and views
    /// to the newest durable state of the directory, which a writer in another process (the
    /// app, while this is its widget or extension) may be writing. Reads what was appended
    /// since and applies it; after a tombstone GC began a new history, replays from the
    /// newest snapshot instead, as an open would. Reads on other threads wait for it, and
    /// then see the new state whole, never part of it.
    ///
    /// What a reader serves is always a prefix of what the writer acknowledged: the log up
    /// to the writer's durable mark (docs/storage.md, "Readers beside a writer"). Costs what
    /// reading the new records costs, plus one look at the directory.
    ///
    /// Observers (`committedChanges()`) hear of what a refresh applied, as one commit, once it
    /// returns: a widget's observed query answers again when the app's writes touch it.
    /// After a new history, the commit holds the changes replayed after the snapshot.
    ///
    /// Throws `.readOnly` for a writable Logbook (it is always up to date), and what opening
    /// read-only throws. A refresh that fails reading the directory changes nothing; one
    /// that fails applying what it read (a damaged batch) leaves the views part-built, and
    /// the next refresh replays everything again.
    @discardableResult
    public func refresh() throws(LogbookError) -> LogRefresh {
        guard log.isReadOnly else {
            throw LogbookError(
                .readOnly, "refresh is for a Logbook opened read-only; a writer is always current",
                path: directory)
        }
        let collector = observers.isObserved ? RefreshCollector() : nil
        let refresh = try locked { () throws(LogbookError) -> LogRefresh in
            let refresh: LogRefresh
            do throws(StorageError) { refresh = try log.refreshReadOnly() } catch {
                throw LogbookError(error)
            }
            // The log has moved on: a failure below leaves the state behind it, which only a
            // replay from the start repairs.
            do throws(LogbookError) {
                if refreshReplaysFromStart || refresh.historyChanged {
                    try replayAgain(collecting: collector)
                } else if refresh.end > refresh.previousEnd {
                    let start = refresh.previousEnd
                    _ = try Replayer.replay(
                        log, into: crdt, from: start,
                        views: (views + (collector.map { [$0] } ?? [])).map { ($0, start) },
                        progress: nil)
                }
                refreshReplaysFromStart = false
            } catch {
                refreshReplaysFromStart = true
                throw error
            }
            loggedClock = crdt.getClock().currentTime()
            if let collector, !collector.changes.isEmpty {
                var commit = MergedChanges(
                    batch: collector.changes, acceptance: nil,
                    offsets: Swift.min(refresh.previousEnd, refresh.end)..<refresh.end)
                commit.isQueuedForObservers = true
                observers.enqueue(commit)
            }
            return refresh
        }
        // Outside the engine's lock, as a writer delivers its commits.
        if collector != nil { observers.deliver(through: refresh.end) }
        return refresh
    }

    /// Rebuilds the state and every view from the newest snapshot and the log after it, into
    /// a fresh replica swapped in at the end (guarded by `lock`).
    private func replayAgain(collecting collector: RefreshCollector?) throws(LogbookError) {
        let (loaded, load) = SnapshotLoader.load(
            directory: directory, nodeId: nodeId, log: log, readOnly: true,
            fileSystem: fileSystem)
        let fresh = loaded ?? ReplicaState(nodeId: nodeId)
        for view in views { view.reset() }
        _ = try Replayer.replay(
            log, into: fresh, from: load.offset,
            views: views.map { ($0, 0) } + (collector.map { [($0, load.offset)] } ?? []),
            progress: nil)
        crdt.replaceContents(with: fresh)
        collection = try TombstoneCollectionState.read(
            directory: directory, fileSystem: fileSystem)
        _ = collection.bound(byLogEnd: log.nextOffset)
        fencedIds = collection.fencedIds
    }
}
