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
        for (recordId, record) in data where record.highestLocalDbVersion > lastDbVersion {
            record.forEachColumn { column, version, value in
                guard version.localDbVersion > lastDbVersion && !excluding.contains(version.nodeId)
                else { return }
                changes.append(
                    Change(
                        recordId: recordId, colName: column, value: value,
                        colVersion: version.colVersion, dbVersion: version.dbVersion,
                        nodeId: version.nodeId, localDbVersion: version.localDbVersion))
            }
        }
        for (recordId, tombstone) in tombstones
        where tombstone.localDbVersion > lastDbVersion && !excluding.contains(tombstone.nodeId) {
            changes.append(
                Change(
                    recordId: recordId, colName: nil, value: nil,
                    colVersion: tombstoneColumnVersion, dbVersion: tombstone.dbVersion,
                    nodeId: tombstone.nodeId, localDbVersion: tombstone.localDbVersion))
        }
        if parent != nil {
            Self.compressChanges(&changes)
        }
        changes.sort(by: Self.isInSyncOrder)
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

    private static func isInSyncOrder(_ lhs: Change<K, C, V>, _ rhs: Change<K, C, V>) -> Bool {
        if lhs.localDbVersion != rhs.localDbVersion {
            return lhs.localDbVersion < rhs.localDbVersion
        }
        if lhs.recordId != rhs.recordId { return lhs.recordId < rhs.recordId }
        return isColumn(lhs.colName, before: rhs.colName)
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
