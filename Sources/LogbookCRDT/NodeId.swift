/// Identifies a replica. A plain `UInt64`, as in crdt-lite's Swift, Rust and C++ versions,
/// so identifiers cross the JSON boundary unchanged.
public typealias NodeId = UInt64

/// The column version a record deletion carries: the highest possible, so a deletion is
/// never outranked by a column change of the same record.
public let tombstoneColumnVersion: UInt64 = .max
