/// A column-level last-writer-wins CRDT with crdt-lite's semantics and Swift API.
///
/// Records are maps of columns to values; every column carries a `ColumnVersion`, and record
/// deletions are kept as tombstones. Local writes tick the `LogicalClock` and return the
/// `Change`s to ship; `mergeChanges` applies remote changes and returns the accepted ones.
/// Replicas that have exchanged the same changes hold the same data, in any order.
///
/// Differences from crdt-lite, all deliberate: `getChangesSince` returns changes in a
/// deterministic order; `init(nodeId:changes:)` and `reset(changes:)` rebuild through merge
/// semantics so field deletions survive a rebuild; writes update records in place.
///
/// Invariants: no record id is both live and tombstoned; every record satisfies
/// `Record.checkInvariants()`; the clock is at least every local version stored.
///
/// Isolation: a reference type with no internal locking; confine it to one task or wrap it.
public final class CRDT<
    K: Hashable & Codable & Sendable, C: Hashable & Codable & Sendable,
    V: Hashable & Codable & Sendable
> {
    @usableFromInline let nodeId: NodeId
    @usableFromInline var clock: LogicalClock
    @usableFromInline var data: [K: Record<C, V>]
    @usableFromInline var tombstones: [K: TombstoneInfo]
    @usableFromInline let parent: CRDT<K, C, V>?
    /// The parent's clock when this child was created.
    let baseVersion: UInt64

    /// Creates an empty replica, optionally layered over a read-only `parent`.
    ///
    /// A child starts at its parent's clock; reads and tombstone checks fall through to the
    /// parent, and the first local write to a parent's record copies it into the child.
    public init(nodeId: NodeId, parent: CRDT<K, C, V>? = nil) {
        self.nodeId = nodeId
        self.parent = parent
        clock = parent?.clock ?? LogicalClock()
        baseVersion = parent?.clock.currentTime() ?? 0
        data = [:]
        tombstones = [:]
    }

    /// Rebuilds a replica from a stored list of its accepted changes.
    ///
    /// Changes apply through merge semantics with their stored `localDbVersion`, and the
    /// clock ends at the highest version seen, so a replica rebuilt from its own accepted
    /// changes holds the same data, column versions and tombstones as the original.
    public convenience init(nodeId: NodeId, changes: [Change<K, C, V>]) {
        self.init(nodeId: nodeId, parent: nil)
        restore(changes)
    }

    /// Clears the replica and rebuilds it from `changes`, as `init(nodeId:changes:)` does.
    public func reset(changes: [Change<K, C, V>]) {
        data.removeAll()
        tombstones.removeAll()
        clock = LogicalClock()
        restore(changes)
    }

    /// Applies stored changes (this replica's own accepted history) in order, keeping their
    /// `localDbVersion`s, then advances the clock to the highest version seen (origin
    /// versions only as far as `LogicalClock.followed(_:at:)` says, as a merge does).
    ///
    /// Unlike `reset(changes:)` it keeps the current state, so a log can be replayed batch by
    /// batch. Complexity: O(n) expected.
    @inlinable public func restore<S: Sequence>(_ changes: S) where S.Element == Change<K, C, V> {
        var highestVersion = clock.currentTime()
        let rule = DefaultMergeRule()
        for change in changes {
            highestVersion = max(
                highestVersion, LogicalClock.followed(change.dbVersion, at: highestVersion),
                change.localDbVersion)
            apply(change, localDbVersion: change.localDbVersion, mergeRule: rule)
        }
        clock.setTime(highestVersion)
    }

    /// A copy of this replica (same node, clock, data, tombstones and parent) that shares
    /// storage with it until either changes: O(1) to take, so a reader can take one under
    /// a lock and do its O(state) work (a snapshot, a sync) outside it.
    public func copy() -> CRDT<K, C, V> {
        let copy = CRDT(nodeId: nodeId, parent: parent)
        copy.clock = clock
        copy.data = data
        copy.tombstones = tombstones
        return copy
    }

    /// Moves the clock forward to `time` if it is behind; never backward. For replicas
    /// restored from a log that also recorded clock advances no change carried.
    @inlinable public func advanceClock(to time: UInt64) {
        if time > clock.currentTime() { clock.setTime(time) }
    }

    // MARK: Local writes

    /// Sets fields of a record, creating it if needed. Returns one change per field.
    ///
    /// The clock ticks once, even when the record is tombstoned (then nothing is written and
    /// `[]` is returned). All fields share the tick's `dbVersion`; each column's version goes
    /// up by one per write, so a column named twice gets two consecutive versions.
    @inlinable @discardableResult
    public func insertOrUpdate(_ recordId: K, fields: [(C, V)]) -> [Change<K, C, V>] {
        insertOrUpdateWithFlags(recordId, flags: 0, fields: fields)
    }

    /// `insertOrUpdate(_:fields:)` with application `flags` set on the returned changes.
    @inlinable @discardableResult
    public func insertOrUpdateWithFlags(
        _ recordId: K, flags: UInt32, fields: [(C, V)]
    ) -> [Change<K, C, V>] {
        let dbVersion = clock.tick()
        let index = data.index(forKey: recordId)
        if index == nil && isTombstoned(recordId) { return [] }
        let nodeId = self.nodeId
        var changes: [Change<K, C, V>] = []
        changes.reserveCapacity(fields.count)
        modifyRecord(recordId, at: index) { record in
            for (column, value) in fields {
                let colVersion = record.writeLocally(
                    column, value: value, dbVersion: dbVersion, nodeId: nodeId)
                changes.append(
                    Change(
                        recordId: recordId, colName: column, value: value,
                        colVersion: colVersion, dbVersion: dbVersion, nodeId: nodeId,
                        localDbVersion: dbVersion, flags: flags))
            }
        }
        return changes
    }

    /// Deletes a record, leaving a tombstone. Returns nil, without a tick, when the record is
    /// already tombstoned. Deleting an id that was never written is allowed (it tombstones it).
    @inlinable @discardableResult
    public func deleteRecord(_ recordId: K) -> Change<K, C, V>? {
        deleteRecordWithFlags(recordId, flags: 0)
    }

    /// `deleteRecord(_:)` with application `flags` set on the returned change.
    @inlinable @discardableResult
    public func deleteRecordWithFlags(_ recordId: K, flags: UInt32) -> Change<K, C, V>? {
        if isTombstoned(recordId) { return nil }
        let dbVersion = clock.tick()
        data.removeValue(forKey: recordId)
        tombstones[recordId] = TombstoneInfo(
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion)
        return Change(
            recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }

    /// Deletes one field, keeping its column version so stale writes lose. Returns nil,
    /// without a tick, when the record is tombstoned or absent or lacks the field.
    @inlinable @discardableResult
    public func deleteField(_ recordId: K, fieldName: C) -> Change<K, C, V>? {
        deleteFieldWithFlags(recordId, fieldName: fieldName, flags: 0)
    }

    /// `deleteField(_:fieldName:)` with application `flags` set on the returned change.
    @inlinable @discardableResult
    public func deleteFieldWithFlags(
        _ recordId: K, fieldName: C, flags: UInt32
    ) -> Change<K, C, V>? {
        if isTombstoned(recordId) { return nil }
        guard getRecord(recordId)?.field(fieldName) != nil else { return nil }
        let dbVersion = clock.tick()
        let nodeId = self.nodeId
        let colVersion = modifyRecord(recordId) { record in
            record.writeLocally(fieldName, value: nil, dbVersion: dbVersion, nodeId: nodeId)
        }
        return Change(
            recordId: recordId, colName: fieldName, value: nil, colVersion: colVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }

    // MARK: Internals shared by the extensions

    /// Runs `body` on the local copy of a record, in place. A record only the parent holds is
    /// copied into this replica first; an unknown one starts empty.
    @inlinable @discardableResult
    func modifyRecord<R>(_ recordId: K, _ body: (inout Record<C, V>) -> R) -> R {
        modifyRecord(recordId, at: data.index(forKey: recordId), body)
    }

    /// `modifyRecord(_:_:)` with the record's index already looked up (nil: not held here),
    /// so a caller that needed the lookup anyway does not hash the id twice.
    @inlinable @discardableResult
    func modifyRecord<R>(
        _ recordId: K, at knownIndex: Dictionary<K, Record<C, V>>.Index?,
        _ body: (inout Record<C, V>) -> R
    ) -> R {
        if let index = knownIndex {
            let result = body(&data.values[index])
            #if LOGBOOK_VERIFY
                data.values[index].checkInvariants()
            #endif
            return result
        }
        var record = parent?.getRecord(recordId) ?? Record()
        let result = body(&record)
        #if LOGBOOK_VERIFY
            record.checkInvariants()
        #endif
        data[recordId] = record
        return result
    }
}
