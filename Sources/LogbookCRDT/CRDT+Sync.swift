extension CRDT where K: Comparable, C: Comparable {
    /// The current state written or accepted after local version `lastDbVersion`: one change
    /// per (record, column) whose version is newer (value nil if the field is deleted, flags
    /// 0) plus one record deletion per newer tombstone.
    ///
    /// This is state, not history: a column written ten times yields one change. A child
    /// replica returns its parent's changes and its own, compressed. Ordered by ascending
    /// `localDbVersion`, then record, then column (deletions last), so output is
    /// deterministic. Complexity: O(records + k log k) for k changes returned.
    public func getChangesSince(_ lastDbVersion: UInt64) -> [Change<K, C, V>] {
        getChangesSinceExcluding(lastDbVersion, excluding: [])
    }

    /// `getChangesSince(_:)` without changes whose origin `nodeId` is in `excluding`.
    public func getChangesSinceExcluding(
        _ lastDbVersion: UInt64, excluding: Set<NodeId>
    ) -> [Change<K, C, V>] {
        var changes = parent?.getChangesSinceExcluding(lastDbVersion, excluding: excluding) ?? []
        changedState(since: lastDbVersion).appendChanges(
            to: &changes, through: .max, excluding: excluding)
        if parent != nil {
            Self.compressChanges(&changes)
        }
        changes.sort(by: ChangedState<K, C, V>.isInSyncOrder)
        return changes
    }

    /// Removes redundant changes in place: per (record, column) only the highest version
    /// (colVersion, then dbVersion, then nodeId) stays; a record with a deletion keeps only its
    /// highest deletion and loses its column changes. The result is sorted by record, then
    /// column, deletions last.
    public static func compressChanges(_ changes: inout [Change<K, C, V>]) {
        guard changes.count > 1 else { return }
        changes.sort { lhs, rhs in
            if lhs.recordId != rhs.recordId { return lhs.recordId < rhs.recordId }
            if lhs.colName != rhs.colName { return isColumn(lhs.colName, before: rhs.colName) }
            return isHigherVersion(lhs, than: rhs)
        }
        var kept: [Change<K, C, V>] = []
        kept.reserveCapacity(changes.count)
        var start = 0
        while start < changes.count {
            var end = start
            while end < changes.count && changes[end].recordId == changes[start].recordId {
                end += 1
            }
            // Sorted with deletions last and the highest version first within each column,
            // so a deletion's first occurrence is the record's highest deletion.
            if let deletion = changes[start..<end].first(where: { $0.colName == nil }) {
                kept.append(deletion)
            } else {
                var previousColumn: C? = nil
                for change in changes[start..<end] where change.colName != previousColumn {
                    kept.append(change)
                    previousColumn = change.colName
                }
            }
            start = end
        }
        changes = kept
    }

    /// Column order with record deletions (nil) last.
    private static func isColumn(_ lhs: C?, before rhs: C?) -> Bool {
        switch (lhs, rhs) {
        case let (left?, right?): return left < right
        case (.some, nil): return true
        default: return false
        }
    }

    private static func isHigherVersion(_ lhs: Change<K, C, V>, than rhs: Change<K, C, V>) -> Bool {
        if lhs.colVersion != rhs.colVersion { return lhs.colVersion > rhs.colVersion }
        if lhs.dbVersion != rhs.dbVersion { return lhs.dbVersion > rhs.dbVersion }
        return lhs.nodeId > rhs.nodeId
    }
}
