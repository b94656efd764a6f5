extension CRDT {
    /// The record with this id, from this replica or else its parent; nil when absent or
    /// tombstoned here.
    @inlinable public func getRecord(_ recordId: K) -> Record<C, V>? {
        if let record = data[recordId] { return record }
        if tombstones[recordId] != nil { return nil }
        return parent?.getRecord(recordId)
    }

    /// True when the record is tombstoned here or in the parent.
    @inlinable public func isTombstoned(_ recordId: K) -> Bool {
        if tombstones[recordId] != nil { return true }
        return parent?.isTombstoned(recordId) ?? false
    }

    /// The tombstone of a deleted record, here or in the parent.
    public func getTombstone(_ recordId: K) -> TombstoneInfo? {
        tombstones[recordId] ?? parent?.getTombstone(recordId)
    }

    /// This replica's own live records (not the parent's). O(1): the dictionary is shared
    /// copy-on-write.
    public func getData() -> [K: Record<C, V>] {
        data
    }

    /// This replica's own tombstones.
    public func getTombstones() -> [K: TombstoneInfo] {
        tombstones
    }

    /// The replica's clock.
    @inlinable public func getClock() -> LogicalClock {
        clock
    }

    /// This replica's node id.
    public func getNodeId() -> NodeId {
        nodeId
    }

    /// The number of tombstones this replica holds.
    public func tombstoneCount() -> Int {
        tombstones.count
    }

    /// Forgets tombstones with `dbVersion < minAcknowledgedVersion` (strictly); returns how
    /// many. The ids become writable again, with columns restarting at version 1.
    ///
    /// Safe only when every replica has seen those deletions; otherwise a replica that has
    /// not can bring the record back. `TombstoneCollector` enforces that; this call does not.
    @discardableResult
    public func compactTombstones(minAcknowledgedVersion: UInt64) -> Int {
        let before = tombstones.count
        tombstones = tombstones.filter { $0.value.dbVersion >= minAcknowledgedVersion }
        return before - tombstones.count
    }

    /// Forgets the tombstones of `recordIds` (ids without one are skipped); returns how many.
    /// The same hazard as `compactTombstones` applies: the caller decides when it is safe.
    @discardableResult
    public func forgetTombstones(_ recordIds: some Sequence<K>) -> Int {
        var forgotten = 0
        for recordId in recordIds where tombstones.removeValue(forKey: recordId) != nil {
            forgotten += 1
        }
        return forgotten
    }

    /// Checks the type's invariants over the whole state. O(n); for tests and verify builds.
    public func checkInvariants() {
        var highest: UInt64 = 0
        for (recordId, record) in data {
            precondition(tombstones[recordId] == nil, "record \(recordId) is live and tombstoned")
            record.checkInvariants()
            if record.columnCount > 0 {
                highest = max(highest, record.highestLocalDbVersion)
            }
        }
        for tombstone in tombstones.values {
            highest = max(highest, tombstone.localDbVersion)
        }
        precondition(
            clock.currentTime() >= highest,
            "clock \(clock.currentTime()) is behind stored local version \(highest)")
    }
}
