/// The part of a replica's state that `getChangesSince` would return, gathered without
/// building a single change: the records and tombstones holding anything newer than a
/// local version, as references to the replica's own storage.
///
/// Taking one is O(records + tombstones) with no allocation per change and no sort, so a
/// reader that shares the replica (Logbook's lock) holds the lock only for that walk and
/// builds, sorts, pages and encodes the changes outside it. The records are copy-on-write
/// values: a later write to the replica copies the one record it touches, never the whole
/// state (a `CRDT.copy()` makes the next write copy every dictionary).
public struct ChangedState<
    K: Hashable & Codable & Sendable & Comparable, C: Hashable & Codable & Sendable & Comparable,
    V: Hashable & Codable & Sendable
>: Sendable {
    /// One record id with what it holds.
    public enum Entry: Sendable {
        /// A live record; only its columns newer than `since` are changes.
        case live(Record<C, V>)
        /// A deleted record: one record deletion.
        case deleted(TombstoneInfo)
    }

    /// The local version the changes are newer than.
    public let since: UInt64
    /// The gathered ids in no particular order.
    public var entries: [(id: K, entry: Entry)]

    /// State gathered by a caller, for tests and for deletions kept outside the replica.
    public init(since: UInt64, entries: [(id: K, entry: Entry)]) {
        self.since = since
        self.entries = entries
    }

    /// Number of changes the entries hold. O(entries + columns).
    @inlinable public var changeCount: Int {
        var count = 0
        forEachChange { _, _, _, _ in count += 1 }
        return count
    }

    /// The changes with a local version in `since + 1 ... through`, in `getChangesSince`'s
    /// order: ascending local version, then record, then column, deletions last.
    @inlinable public func changes(through: UInt64 = .max) -> [Change<K, C, V>] {
        var changes = unorderedChanges(through: through)
        changes.sort(by: Self.isInSyncOrder)
        return changes
    }

    /// The changes with a local version in `above + 1 ... through`, in `getChangesSince`'s
    /// order: one window of `windowEnds(changesMax:)`.
    @inlinable public func changes(above: UInt64, through: UInt64) -> [Change<K, C, V>] {
        var changes: [Change<K, C, V>] = []
        appendChanges(to: &changes, above: above, through: through)
        changes.sort(by: Self.isInSyncOrder)
        return changes
    }

    /// Cuts the changes into windows of about `changesMax` each, in local version order: the
    /// local version each window ends at (the last is the highest held), with the number of
    /// changes in all. A window never splits one local version (one transaction), so it
    /// holds more when one is larger. An answer built a window at a time
    /// (`changes(above:through:)`, from `since`) holds one window's changes at once, not all
    /// of them; what it costs is a walk of the entries per window and 8 bytes per change
    /// here. Complexity: O(changes log changes).
    @inlinable public func windowEnds(changesMax: Int) -> (ends: [UInt64], changeCount: Int) {
        var versions: [UInt64] = []
        forEachChange { _, _, _, version in versions.append(version.localDbVersion) }
        versions.sort()
        var ends: [UInt64] = []
        var inWindow = 0
        for index in versions.indices {
            inWindow += 1
            let last = index == versions.count - 1 || versions[index + 1] != versions[index]
            if last && (inWindow >= Swift.max(1, changesMax) || index == versions.count - 1) {
                ends.append(versions[index])
                inWindow = 0
            }
        }
        return (ends, versions.count)
    }

    /// The changes `changes(through:)` gives, in no particular order: for a receiver that
    /// merges them, which gives the same state in any order, without the sort.
    @inlinable public func unorderedChanges(through: UInt64 = .max) -> [Change<K, C, V>] {
        var changes: [Change<K, C, V>] = []
        appendChanges(to: &changes, through: through)
        return changes
    }

    /// Appends the changes with a local version in `since + 1 ... through`, and above
    /// `above`, whose origin is not in `excluding`, in no particular order.
    @inlinable func appendChanges(
        to changes: inout [Change<K, C, V>], above: UInt64 = 0, through: UInt64,
        excluding: Set<NodeId> = []
    ) {
        forEachChange { id, column, value, version in
            guard version.localDbVersion > above, version.localDbVersion <= through,
                !excluding.contains(version.nodeId)
            else {
                return
            }
            changes.append(
                Change(
                    recordId: id, colName: column, value: value, colVersion: version.colVersion,
                    dbVersion: version.dbVersion, nodeId: version.nodeId,
                    localDbVersion: version.localDbVersion))
        }
    }

    /// The smallest local version `v` such that the changes in `since + 1 ... v` number at
    /// least `changesMax`, where a page of about `changesMax` changes ends without splitting
    /// one local version (one transaction); nil when every change is at or below it, so no
    /// page needs to end early. Complexity: O(changes) expected.
    @inlinable public func pageEnd(changesMax: Int) -> UInt64? {
        var versions: [UInt64] = []
        forEachChange { _, _, _, version in versions.append(version.localDbVersion) }
        guard changesMax > 0, versions.count > changesMax, let highest = versions.max() else {
            return nil
        }
        versions.sortPrefix(changesMax, by: <)
        let end = versions[changesMax - 1]
        return end < highest ? end : nil
    }

    /// The entries with the smallest ids, in ascending id order, until they hold at least
    /// `changesMax` changes (an entry is never split), and whether any are left after them.
    /// Complexity: O(entries) expected plus sorting the chosen ones.
    @inlinable public func firstById(changesMax: Int) -> (page: ChangedState, more: Bool) {
        // Positions are ordered, not entries: reordering the entries themselves would copy
        // every one of them (a retain and a release of its id and record each), once per page
        // of a state paged through.
        var order = Array(entries.indices)
        // Each entry holds at least one change, except a record with no columns: taking
        // `changesMax` ids is enough for a full page in all but that case, where the page
        // comes out shorter and the next one carries on.
        let taken = Swift.min(order.count, Swift.max(changesMax, 1))
        order.sortPrefix(taken, by: { entries[$0].id < entries[$1].id })
        var page: [(id: K, entry: Entry)] = []
        var changes = 0
        while page.count < taken && changes < changesMax {
            let (id, entry) = entries[order[page.count]]
            changes += Self.changeCount(of: entry, id: id, since: since)
            page.append((id, entry))
        }
        return (ChangedState(since: since, entries: page), page.count < entries.count)
    }

    /// Calls `body` with every change the entries hold (newer than `since`): record id,
    /// column (nil for a record deletion), value and version.
    @inlinable func forEachChange(_ body: (K, C?, V?, ColumnVersion) -> Void) {
        for (id, entry) in entries { Self.forEachChange(of: entry, id: id, since: since, body) }
    }

    @inlinable static func forEachChange(
        of entry: Entry, id: K, since: UInt64, _ body: (K, C?, V?, ColumnVersion) -> Void
    ) {
        switch entry {
        case .live(let record):
            guard record.highestLocalDbVersion > since else { return }
            record.forEachColumn { column, version, value in
                if version.localDbVersion > since { body(id, column, value, version) }
            }
        case .deleted(let tombstone):
            if tombstone.localDbVersion > since { body(id, nil, nil, tombstone.asColumnVersion()) }
        }
    }

    @inlinable static func changeCount(of entry: Entry, id: K, since: UInt64) -> Int {
        var count = 0
        forEachChange(of: entry, id: id, since: since) { _, _, _, _ in count += 1 }
        return count
    }

    /// `getChangesSince`'s order.
    @inlinable public static func isInSyncOrder(_ lhs: Change<K, C, V>, _ rhs: Change<K, C, V>)
        -> Bool
    {
        if lhs.localDbVersion != rhs.localDbVersion {
            return lhs.localDbVersion < rhs.localDbVersion
        }
        if lhs.recordId != rhs.recordId { return lhs.recordId < rhs.recordId }
        switch (lhs.colName, rhs.colName) {
        case let (left?, right?): return left < right
        case (.some, nil): return true
        default: return false
        }
    }
}

extension CRDT where K: Comparable, C: Comparable {
    /// The records and tombstones of this replica (not its parent) holding changes newer
    /// than `lastDbVersion`, with ids after `idsAfter` when given; see `ChangedState`.
    /// `changedState(since: v).changes()` equals `getChangesSince(v)` for a replica without
    /// a parent. Complexity: O(records + tombstones), no change built.
    public func changedState(since lastDbVersion: UInt64, idsAfter: K? = nil) -> ChangedState<
        K, C, V
    > {
        var entries: [(id: K, entry: ChangedState<K, C, V>.Entry)] = []
        for (id, record) in data where record.highestLocalDbVersion > lastDbVersion {
            if let idsAfter, id <= idsAfter { continue }
            entries.append((id, .live(record)))
        }
        for (id, tombstone) in tombstones where tombstone.localDbVersion > lastDbVersion {
            if let idsAfter, id <= idsAfter { continue }
            entries.append((id, .deleted(tombstone)))
        }
        return ChangedState(since: lastDbVersion, entries: entries)
    }
}
