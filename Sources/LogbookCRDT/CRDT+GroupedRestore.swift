extension CRDT {
    /// `restore(_:)` for stored changes that come grouped by record, as a replica snapshot
    /// writes them: each run of column changes to one record that is neither held nor
    /// tombstoned here is merged into a record built aside, then inserted with one hash
    /// instead of one lookup per column. The result is exactly `restore(_:)`'s (the same
    /// merge rule decides within a run); anything else (a deletion, a record already held,
    /// a replica with a parent) takes the ordinary path. Complexity: O(n) expected.
    @inlinable public func restoreGrouped(_ changes: [Change<K, C, V>]) {
        guard parent == nil else { return restore(changes) }
        var highestVersion = clock.currentTime()
        let rule = DefaultMergeRule()
        var start = changes.startIndex
        while start < changes.endIndex {
            let recordId = changes[start].recordId
            var end = start
            while end < changes.endIndex, changes[end].colName != nil,
                changes[end].recordId == recordId
            {
                end += 1
            }
            if end > start && data.index(forKey: recordId) == nil
                && (tombstones.isEmpty || tombstones[recordId] == nil)
            {
                var record = Record<C, V>()
                for change in changes[start..<end] {
                    highestVersion = max(
                        highestVersion, LogicalClock.followed(change.dbVersion, at: highestVersion),
                        change.localDbVersion)
                    if let column = change.colName {
                        _ = Self.applyIfAccepted(
                            change, column: column, localDbVersion: change.localDbVersion,
                            mergeRule: rule, to: &record)
                    }
                }
                data[recordId] = record
            } else {
                end = max(end, start + 1)
                for change in changes[start..<end] {
                    highestVersion = max(
                        highestVersion, LogicalClock.followed(change.dbVersion, at: highestVersion),
                        change.localDbVersion)
                    apply(change, localDbVersion: change.localDbVersion, mergeRule: rule)
                }
            }
            start = end
        }
        clock.setTime(highestVersion)
    }
}
