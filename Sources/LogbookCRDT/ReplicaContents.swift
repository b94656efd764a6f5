/// Read access to a replica's whole state, for what walks all of it (the state digest, a
/// snapshot's entries): the crdt-lite-compatible `CRDT` and the engine's `ReplicaState` both
/// answer it, so such code is written once for both.
public protocol ReplicaContents {
    /// Calls `body` with every live record, in no particular order.
    func forEachRecord(_ body: (String, Record<String, Value>) throws -> Void) rethrows
    /// Calls `body` with every tombstone, in no particular order.
    func forEachTombstone(_ body: (String, TombstoneInfo) throws -> Void) rethrows
    /// The replica's clock.
    func getClock() -> LogicalClock
    /// The replica's node id.
    func getNodeId() -> NodeId
}

extension ReplicaState: ReplicaContents {}

extension CRDT: ReplicaContents where K == String, C == String, V == Value {
    /// Calls `body` with this replica's own live records (not a parent's).
    public func forEachRecord(_ body: (String, Record<String, Value>) throws -> Void) rethrows {
        for (recordId, record) in data { try body(recordId, record) }
    }

    /// Calls `body` with this replica's own tombstones (not a parent's).
    public func forEachTombstone(_ body: (String, TombstoneInfo) throws -> Void) rethrows {
        for (recordId, tombstone) in tombstones { try body(recordId, tombstone) }
    }
}
