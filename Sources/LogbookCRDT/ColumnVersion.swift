/// The version of one (record, column): what the merge rule compares.
///
/// Kept after the column's field is deleted, so a stale write to the deleted field loses.
public struct ColumnVersion: Codable, Hashable, Sendable {
    /// Per-column counter: the number of writes the winning chain has seen.
    public var colVersion: UInt64
    /// The origin replica's clock when the winning write was made.
    public var dbVersion: UInt64
    /// The replica that made the winning write.
    public var nodeId: NodeId
    /// This replica's clock when it accepted the winning write; drives `getChangesSince`.
    public var localDbVersion: UInt64

    /// Creates a column version from its four parts.
    @inlinable public init(
        colVersion: UInt64, dbVersion: UInt64, nodeId: NodeId, localDbVersion: UInt64
    ) {
        self.colVersion = colVersion
        self.dbVersion = dbVersion
        self.nodeId = nodeId
        self.localDbVersion = localDbVersion
    }
}
