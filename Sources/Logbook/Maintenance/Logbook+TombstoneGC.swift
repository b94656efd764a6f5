import Foundation
import LogbookCRDT
import LogbookStorage

extension Logbook {
    /// Tombstone GC: removes deletions every registered peer in `peers` has seen, older than
    /// the retention time, with whatever they shadow, from the log and from memory; fences
    /// the collected records against local re-insert until every peer has collected them
    /// too. See `TombstoneCollector` and docs/maintenance.md. Appends continue while it
    /// runs. One maintenance pass (compaction or GC) at a time per instance.
    public func collectTombstones(
        peers: PeerLedger, _ options: TombstoneCollectionOptions = TombstoneCollectionOptions()
    ) throws(LogbookError) -> TombstoneCollectionReport {
        let started = ContinuousClock.now
        defer { metrics.collectionDuration.record(since: started) }
        try peers.requireMembershipKept()
        // The rule reads cursors and acknowledgements: none may name merges this log lost
        // (`PeerLedger+PullPositions`), and none may lag after a power cut
        // (`PeerLedger.Persistence.progress`). A dry run writes nothing, so a cursor it
        // would restart blocks it instead.
        if options.dryRun {
            if let (peer, reason) = peers.pullsNotHeld(by: self).first {
                var report = TombstoneCollectionReport(starting: self, peers: peers)
                report.blockedBecause =
                    "the pull cursor for \(peer) names merges this log does not hold (\(reason)); "
                    + "a run that is not dry restarts it first"
                return report
            }
        } else {
            do { try peers.restartPullsNotHeld(by: self) } catch {
                throw error as? LogbookError
                    ?? LogbookError(.failed, "peer ledger not written: \(error)", path: directory)
            }
        }
        try peers.makeDurable()
        return try maintaining { () throws(LogbookError) in
            try TombstoneCollector.collect(self, peers: peers, options: options)
        }
    }

    /// Tombstone GC through a hub: collects the tombstones `listed` (one page of the hub
    /// stream `hub`'s list, from `listedCollectedBelow(peer:)` on), fences them until the hub
    /// says every node collected them, and lifts the fences it says may lift. See
    /// `ListedTombstoneCollector` and docs/maintenance.md. Options: `dryRun`, `now`,
    /// `bytesPerSecondMax` (the hub applies the retention time).
    public func collectTombstones(
        listed: CollectableTombstones, hub: String, peers: PeerLedger,
        _ options: TombstoneCollectionOptions = TombstoneCollectionOptions()
    ) throws(LogbookError) -> TombstoneCollectionReport {
        let started = ContinuousClock.now
        defer { metrics.collectionDuration.record(since: started) }
        try peers.makeDurable()  // the push cursor bounds the history start it moves
        return try maintaining { () throws(LogbookError) in
            try ListedTombstoneCollector.collect(
                self, listed: listed, hub: hub, peers: peers, options: options)
        }
    }

    /// How far this node collected what the hub stream `peer` listed (a hub version; 0
    /// before any): the next list starts there, and the hub hears it in acknowledgements.
    public func listedCollectedBelow(peer: String) -> UInt64 {
        locked { collection.hubs?[peer]?.listedCollectedBelow ?? 0 }
    }

    /// Every tombstone this log held below this offset has been collected (0 before any GC).
    /// Peers send it back in acknowledgements; their fences wait for it.
    public var collectedBelow: UInt64 { locked { collection.collectedBelow } }

    /// History below this offset lacks collected tombstones; pulls from below it need a
    /// snapshot. The log start as shipping sees it.
    public var historyStart: UInt64 { locked { historyStartHeld } }

    /// `historyStart`, with the lock held.
    var historyStartHeld: UInt64 { max(collection.historyStart, log.startOffset) }

    /// Collected records whose local writes are still refused.
    public var fencedRecordCount: Int { locked { fencedIds.count } }

    /// True when local writes to `recordId` are refused because GC collected its tombstone
    /// and a peer may still hold it.
    public func isFenced(_ recordId: String) -> Bool { locked { isFenced(held: recordId) } }

    /// The fence as a test for `ReplicaState.write(_:…skipping:)`, with the lock held: the
    /// set copied once, and no hashing while nothing is fenced.
    func fenceTest() -> (String) -> Bool {
        let fenced = fencedIds
        return fenced.isEmpty ? { _ in false } : { fenced.contains($0) }
    }

    /// `isFenced`, with the lock held; no hashing on the write path while nothing is fenced.
    func isFenced(held recordId: String) -> Bool {
        !fencedIds.isEmpty && fencedIds.contains(recordId)
    }

    /// The state as changes, for a node that joins or fell below `historyStart`: every live
    /// column and tombstone (`getChangesSince(0)`), plus a deletion for every fenced record,
    /// so the receiver cannot re-insert one while a peer still holds its tombstone. In
    /// `getChangesSince`'s order. See `ReplicationSource.statePage` for the bounded form.
    public func snapshotChanges() -> [Change<String, String, Value>] {
        // Gathered under the lock without building a change (see `ChangedState`): writers
        // wait for one walk over the ids, not for the changes to be built and sorted.
        let state = locked {
            var state = crdt.changedState(since: 0)
            for round in collection.rounds {
                for record in round.records {
                    state.entries.append((record.id, .deleted(Self.fencedDeletion(record))))
                }
            }
            return state
        }
        return state.changes()
    }

    /// The deletion a snapshot holds for a collected, fenced record: its origin's version,
    /// local version at least 1 so that no deletion is left out of the changes above 0.
    private static func fencedDeletion(_ record: TombstoneCollectionState.FencedRecord)
        -> TombstoneInfo
    {
        TombstoneInfo(
            dbVersion: record.dbVersion, nodeId: record.nodeId,
            localDbVersion: max(record.dbVersion, 1))
    }

    /// A page of `snapshotChanges`' records in ascending id order, after `after`: whole
    /// records until at least `changesMax` changes, and the id the next page starts after
    /// (nil at the end). The lock is held for a walk over the ids and for sharing the page's
    /// records; the ids are sorted between the two visits (`StatePageCandidates`).
    func statePage(after: String?, changesMax: Int) -> (
        page: ChangedState<String, String, Value>, nextAfter: String?
    ) {
        var candidates = locked {
            var candidates = crdt.statePageCandidates(after: after)
            for round in collection.rounds {
                for record in round.records where after.map({ record.id > $0 }) ?? true {
                    candidates.appendDeletion(id: record.id, Self.fencedDeletion(record))
                }
            }
            return candidates
        }
        candidates.order(changesMax: changesMax)
        return locked { crdt.statePage(from: candidates, changesMax: changesMax) }
    }

    // MARK: For the collector

    var collectionState: TombstoneCollectionState { locked { collection } }

    /// The end of the sealed segments.
    var sealedEnd: UInt64 { locked { log.sealedSegments.last?.nextOffset ?? log.startOffset } }

    func tombstoneSnapshot() -> [String: TombstoneInfo] { locked { crdt.getTombstones() } }

    /// Writes the GC state durably, then adopts it (fences included).
    func commitCollectionState(_ state: TombstoneCollectionState) throws(LogbookError) {
        try locked { () throws(LogbookError) in
            if state != collection {
                try state.write(directory: directory, fileSystem: fileSystem)
            }
            collection = state
            fencedIds = state.fencedIds
        }
    }

    /// Logs the clock as it is and syncs, so dropping older records never lowers the clock
    /// a replay restores; with `sealing`, seals the active segment too.
    func pinClock(sealing: Bool) throws(LogbookError) {
        try locked { () throws(LogbookError) in
            do throws(StorageError) {
                try appendClock()
                try log.sync()
            } catch {
                throw fail(error)
            }
            if sealing { try sealLeavingWritable() }
        }
    }

    func forgetTombstones(_ ids: some Sequence<String>) {
        locked { _ = crdt.forgetTombstones(ids) }
    }
}
