extension CRDT {
    /// Merges remote changes one at a time, in order; returns the accepted ones.
    ///
    /// For every change the clock first takes `update(change.dbVersion)`, accepted or not, and
    /// that new time becomes the accepted change's `localDbVersion`. Changes for tombstoned
    /// records are dropped. A record deletion of a live record is always accepted. A column
    /// change is accepted when the column has no local version or `mergeRule` prefers it.
    /// Accepted changes keep their incoming flags. Complexity: O(n) expected.
    @inlinable @discardableResult
    public func mergeChanges<R: MergeRule>(
        _ changes: [Change<K, C, V>], mergeRule: R
    ) -> [Change<K, C, V>] {
        var accepted: [Change<K, C, V>] = []
        accepted.reserveCapacity(changes.count)
        for change in changes {
            let localDbVersion = clock.update(change.dbVersion)
            if apply(change, localDbVersion: localDbVersion, mergeRule: mergeRule) {
                var acceptedChange = change
                acceptedChange.localDbVersion = localDbVersion
                accepted.append(acceptedChange)
            }
        }
        return accepted
    }

    /// Merges remote changes with `DefaultMergeRule`.
    @inlinable @discardableResult
    public func mergeChanges(_ changes: [Change<K, C, V>]) -> [Change<K, C, V>] {
        mergeChanges(changes, mergeRule: DefaultMergeRule())
    }

    /// Applies one change if the merge rules accept it, stamping `localDbVersion`; returns
    /// whether it was accepted. Never touches the clock: callers decide how it moves.
    ///
    /// The common case (a record this replica holds) costs one lookup of the record id,
    /// updated in place; `isEmpty` guards skip hashing when there are no tombstones.
    @inlinable @discardableResult
    func apply<R: MergeRule>(
        _ change: Change<K, C, V>, localDbVersion: UInt64, mergeRule: R
    ) -> Bool {
        // A record held here is live everywhere (a deletion removes it, and a parent never
        // changes), so the common case needs one lookup and no tombstone check.
        let index = data.index(forKey: change.recordId)
        if index == nil {
            if !tombstones.isEmpty && tombstones[change.recordId] != nil { return false }
            if let parent, parent.isTombstoned(change.recordId) { return false }
        }
        guard let column = change.colName else {
            data.removeValue(forKey: change.recordId)
            tombstones[change.recordId] = TombstoneInfo(
                dbVersion: change.dbVersion, nodeId: change.nodeId,
                localDbVersion: localDbVersion)
            return true
        }
        if let index {
            // Check and write inside one in-place access: reading the record out first would
            // retain its storage and make the write copy it.
            return Self.applyIfAccepted(
                change, column: column, localDbVersion: localDbVersion, mergeRule: mergeRule,
                to: &data.values[index])
        }
        if let local = parent?.getRecord(change.recordId)?.columnVersion(column),
            !Self.accepts(change, over: local, mergeRule)
        {
            return false
        }
        modifyRecord(change.recordId) { record in
            Self.write(change, column: column, localDbVersion: localDbVersion, into: &record)
        }
        return true
    }

    @inlinable
    static func applyIfAccepted<R: MergeRule>(
        _ change: Change<K, C, V>, column: C, localDbVersion: UInt64, mergeRule: R,
        to record: inout Record<C, V>
    ) -> Bool {
        if let local = record.columnVersion(column), !accepts(change, over: local, mergeRule) {
            return false
        }
        write(change, column: column, localDbVersion: localDbVersion, into: &record)
        return true
    }

    @inlinable
    static func accepts<R: MergeRule>(
        _ change: Change<K, C, V>, over local: ColumnVersion, _ rule: R
    ) -> Bool {
        rule.shouldAccept(
            localCol: local.colVersion, localDb: local.dbVersion, localNode: local.nodeId,
            remoteCol: change.colVersion, remoteDb: change.dbVersion, remoteNode: change.nodeId)
    }

    @inlinable
    static func write(
        _ change: Change<K, C, V>, column: C, localDbVersion: UInt64,
        into record: inout Record<C, V>
    ) {
        record.write(
            column,
            version: ColumnVersion(
                colVersion: change.colVersion, dbVersion: change.dbVersion,
                nodeId: change.nodeId, localDbVersion: localDbVersion),
            value: change.value)
    }
}
