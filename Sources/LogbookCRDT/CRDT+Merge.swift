extension CRDT {
    /// Merges remote changes one at a time, in order; returns the accepted ones.
    ///
    /// For every change the clock first takes `update(change.dbVersion)`, accepted or not, and
    /// that new time becomes the accepted change's `localDbVersion`. Changes for tombstoned
    /// records are dropped. A record deletion of a live record is always accepted. A column
    /// change is accepted when the column has no local version or `mergeRule` prefers it.
    /// Accepted changes keep their incoming flags. Complexity: O(n) expected.
    @discardableResult
    public func mergeChanges<R: MergeRule>(
        _ changes: [Change<K, C, V>], mergeRule: R
    ) -> [Change<K, C, V>] {
        var accepted: [Change<K, C, V>] = []
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
    @discardableResult
    public func mergeChanges(_ changes: [Change<K, C, V>]) -> [Change<K, C, V>] {
        mergeChanges(changes, mergeRule: DefaultMergeRule())
    }

    /// Applies one change if the merge rules accept it, stamping `localDbVersion`; returns
    /// whether it was accepted. Never touches the clock: callers decide how it moves.
    @discardableResult
    func apply<R: MergeRule>(
        _ change: Change<K, C, V>, localDbVersion: UInt64, mergeRule: R
    ) -> Bool {
        if isTombstoned(change.recordId) { return false }
        guard let column = change.colName else {
            data.removeValue(forKey: change.recordId)
            tombstones[change.recordId] = TombstoneInfo(
                dbVersion: change.dbVersion, nodeId: change.nodeId,
                localDbVersion: localDbVersion)
            return true
        }
        if let local = getRecord(change.recordId)?.columnVersions[column],
            !mergeRule.shouldAccept(
                localCol: local.colVersion, localDb: local.dbVersion, localNode: local.nodeId,
                remoteCol: change.colVersion, remoteDb: change.dbVersion,
                remoteNode: change.nodeId)
        {
            return false
        }
        modifyRecord(change.recordId) { record in
            if let value = change.value {
                record.fields[column] = value
            } else {
                record.fields.removeValue(forKey: column)
            }
            record.columnVersions[column] = ColumnVersion(
                colVersion: change.colVersion, dbVersion: change.dbVersion,
                nodeId: change.nodeId, localDbVersion: localDbVersion)
            record.noteLocalVersion(localDbVersion)
        }
        return true
    }
}
