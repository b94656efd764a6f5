/// A replica of string-keyed records with `Value` fields, specialized for the engine: the
/// same semantics as `CRDT<String, String, Value>` (crdt-lite's column-level last writer
/// wins, tombstones, Lamport clock), stored for speed.
///
/// What is different inside (`ReplicaStorage`):
/// - Each record id is hashed once, with `KeyHash`, and numbered densely (`RecordIdTable`);
///   a record's id, columns and status sit in one array slot under that number, so a merge
///   touches the id table and the record's slot instead of a `Dictionary` of structs.
/// - Merging walks a batch with the lookups of later changes prefetched, so the cache misses
///   of several changes overlap instead of following one another.
/// - The changes of a batch are read in place, never copied; `merge(_:)` answers with
///   positions and local versions (`AcceptedChanges`).
/// - No generic code on the hot path: the element types are fixed.
///
/// `CRDT` stays the crdt-lite-compatible public API; `ReplicaStateDifferentialTests` hold
/// the two to the same results on seeded workloads. No parent replicas here.
///
/// Invariants: every number in the id table names an entry whose id hashes to its slot's
/// hash; a live entry has no tombstone and a tombstoned one no columns; column names are
/// unique within a record; the clock is at least every local version stored.
///
/// Isolation: a reference type with no internal locking; confine it to one task or wrap it.
public final class ReplicaState {
    let nodeId: NodeId
    // Every access of a class's stored property is checked for exclusivity at run time, a
    // thread-local lookup of about 80 instructions, three a one-call write. Release builds
    // leave the check out here; debug builds, which run the tests, keep it
    // (docs/decisions/0010-exclusivity-checks-in-release.md).
    #if LOGBOOK_VERIFY
        var storage = ReplicaStorage()
    #else
        @exclusivity(unchecked) var storage = ReplicaStorage()
    #endif

    /// An empty replica of `nodeId`.
    public init(nodeId: NodeId) {
        self.nodeId = nodeId
    }

    // MARK: Merging

    /// Merges remote changes one at a time, in order; returns the accepted ones, each with
    /// the `localDbVersion` it was accepted at. Exactly `CRDT.mergeChanges(_:)`: the clock
    /// takes `update(change.dbVersion)` for every change, accepted or not; changes to
    /// tombstoned records are dropped; a record deletion of a live record always wins; a
    /// column change wins when the column has no version here or `DefaultMergeRule` prefers
    /// it. Complexity: O(n) expected.
    @discardableResult
    public func mergeChanges(_ changes: [Change<String, String, Value>]) -> [Change<
        String, String, Value
    >] {
        let accepted = merge(changes)
        return accepted.positions.indices.map { index in
            var change = changes[accepted.positions[index]]
            change.localDbVersion = accepted.localDbVersions[index]
            return change
        }
    }

    /// `mergeChanges(_:)` without copying the accepted changes: which of `changes` were
    /// accepted and at what local versions, for a caller that logs them straight from
    /// `changes` (the engine encodes them with their new local version).
    public func merge(_ changes: [Change<String, String, Value>]) -> AcceptedChanges {
        storage.merge(changes)
    }

    /// Applies stored changes (this replica's own accepted history) in order, keeping their
    /// `localDbVersion`s, then advances the clock to the highest version seen, as
    /// `CRDT.restore(_:)` does. Complexity: O(n) expected.
    public func restore(_ changes: [Change<String, String, Value>]) {
        storage.restore(changes)
    }

    // MARK: Queries, in `CRDT`'s terms

    /// The record with this id; nil when absent or tombstoned. O(1): the record is shared
    /// copy-on-write.
    public func getRecord(_ recordId: String) -> Record<String, Value>? {
        guard let number = storage.number(of: recordId), storage.entries[number].status == .live
        else { return nil }
        return storage.entries[number].record
    }

    /// True when the record is tombstoned.
    public func isTombstoned(_ recordId: String) -> Bool {
        getTombstone(recordId) != nil
    }

    /// The tombstone of a deleted record.
    public func getTombstone(_ recordId: String) -> TombstoneInfo? {
        guard let number = storage.number(of: recordId) else { return nil }
        return storage.tombstones[number]
    }

    /// Every live record, keyed by id: `CRDT.getData()`'s shape. O(state) to build.
    public func getData() -> [String: Record<String, Value>] {
        var data: [String: Record<String, Value>] = [:]
        data.reserveCapacity(storage.liveCount)
        for entry in storage.entries where entry.status == .live {
            data[entry.id] = entry.record
        }
        return data
    }

    /// Every tombstone, keyed by record id: `CRDT.getTombstones()`'s shape.
    public func getTombstones() -> [String: TombstoneInfo] {
        var byId: [String: TombstoneInfo] = [:]
        byId.reserveCapacity(storage.tombstones.count)
        for (number, tombstone) in storage.tombstones {
            byId[storage.entries[number].id] = tombstone
        }
        return byId
    }

    /// The replica's clock.
    public func getClock() -> LogicalClock { storage.clock }

    /// This replica's node id.
    public func getNodeId() -> NodeId { nodeId }

    /// The number of live records.
    public var recordCount: Int { storage.liveCount }

    /// The number of tombstones.
    public func tombstoneCount() -> Int { storage.tombstones.count }

    /// Moves the clock forward to `time` if it is behind; never backward.
    public func advanceClock(to time: UInt64) {
        if time > storage.clock.currentTime() { storage.clock.setTime(time) }
    }

    /// Checks the type's invariants over the whole state. O(n); for tests and verify builds.
    public func checkInvariants() {
        var highest: UInt64 = 0
        var live = 0
        let free = Set(storage.freeNumbers)
        precondition(free.count == storage.freeNumbers.count, "a number is free twice")
        precondition(
            storage.table.count == storage.entries.count - free.count,
            "the id table holds \(storage.table.count) ids for \(storage.entries.count - free.count) entries"
        )
        for (number, entry) in storage.entries.enumerated() {
            let tombstone = storage.tombstones[number]
            if free.contains(number) {
                precondition(
                    entry.status == .absent && tombstone == nil, "free number \(number) in use")
                continue
            }
            precondition(
                storage.number(of: entry.id) == number, "record \(entry.id) is not found by its id")
            precondition(
                (entry.status == .tombstoned) == (tombstone != nil),
                "record \(entry.id) is \(entry.status) with tombstone \(String(describing: tombstone))"
            )
            precondition(
                entry.status == .live || entry.record.columnCount == 0,
                "record \(entry.id) is not live but keeps columns")
            entry.record.checkInvariants()
            if entry.status == .live { live += 1 }
            if entry.record.columnCount > 0 {
                highest = max(highest, entry.record.highestLocalDbVersion)
            }
        }
        for tombstone in storage.tombstones.values {
            highest = max(highest, tombstone.localDbVersion)
        }
        precondition(
            live == storage.liveCount, "\(live) live records counted as \(storage.liveCount)")
        precondition(
            storage.clock.currentTime() >= highest,
            "clock \(storage.clock.currentTime()) is behind stored local version \(highest)")
    }
}

extension ReplicaState {
    /// Takes `other`'s records, column versions, tombstones and clock as its own, in O(1)
    /// (the storage is shared copy-on-write): a reader that replayed its log again into a
    /// fresh replica swaps the result in. Both must be replicas of one node.
    public func replaceContents(with other: ReplicaState) {
        precondition(other.nodeId == nodeId, "node \(other.nodeId) replaces node \(nodeId)")
        storage = other.storage
    }
}
