extension ReplicaState {
    /// The records and tombstones holding changes newer than `lastDbVersion`, with ids after
    /// `idsAfter` when given, as `CRDT.changedState(since:idsAfter:)` gathers them: the
    /// records are shared copy-on-write, no change is built. Complexity: O(records ever
    /// numbered).
    public func changedState(
        since lastDbVersion: UInt64, idsAfter: String? = nil
    ) -> ChangedState<String, String, Value> {
        var entries: [(id: String, entry: ChangedState<String, String, Value>.Entry)] = []
        // An index loop: `enumerated()` costs a debug build a tuple metadata lookup a record.
        var number = 0
        while number < storage.entries.count {
            defer { number += 1 }
            let entry = storage.entries[number]
            if let idsAfter, entry.id <= idsAfter { continue }
            switch entry.status {
            case .live where entry.record.highestLocalDbVersion > lastDbVersion:
                entries.append((entry.id, .live(entry.record)))
            case .tombstoned:
                if let tombstone = storage.tombstones[number],
                    tombstone.localDbVersion > lastDbVersion
                {
                    entries.append((entry.id, .deleted(tombstone)))
                }
            default:
                continue
            }
        }
        return ChangedState(since: lastDbVersion, entries: entries)
    }

    /// `CRDT.getChangesSince(_:)`: the state written or accepted after `lastDbVersion`, one
    /// change per newer column and one deletion per newer tombstone, in sync order.
    public func getChangesSince(_ lastDbVersion: UInt64) -> [Change<String, String, Value>] {
        changedState(since: lastDbVersion).changes()
    }

    /// Calls `body` with every live record, in no particular order.
    public func forEachRecord(_ body: (String, Record<String, Value>) throws -> Void) rethrows {
        for entry in storage.entries where entry.status == .live {
            try body(entry.id, entry.record)
        }
    }

    /// Calls `body` with every tombstone, in no particular order.
    public func forEachTombstone(_ body: (String, TombstoneInfo) throws -> Void) rethrows {
        for (number, tombstone) in storage.tombstones {
            try body(storage.entries[number].id, tombstone)
        }
    }

    /// Forgets the tombstones of `recordIds` (ids without one are skipped); returns how many.
    /// The ids become writable again, columns restarting at version 1; their entries are
    /// freed for new ids. The same hazard as
    /// `CRDT.forgetTombstones(_:)`: the caller decides when it is safe.
    @discardableResult
    public func forgetTombstones(_ recordIds: some Sequence<String>) -> Int {
        var forgotten = 0
        for recordId in recordIds where storage.forgetTombstone(recordId) { forgotten += 1 }
        return forgotten
    }

    /// A copy of this replica that shares storage with it until either changes: O(1) to
    /// take, so a reader can take one under a lock and do its O(state) work outside it. The
    /// first write after it copies the state's arrays, as `CRDT.copy()`'s does its
    /// dictionaries.
    public func copy() -> ReplicaState {
        let copy = ReplicaState(nodeId: nodeId)
        copy.storage = storage
        return copy
    }
}
