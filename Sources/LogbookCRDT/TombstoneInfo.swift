/// What a replica remembers of a deleted record: enough to ship the deletion and to decide
/// when it may be forgotten (`compactTombstones`).
public struct TombstoneInfo: Codable, Hashable, Sendable {
    /// The deleting replica's clock at the deletion.
    public var dbVersion: UInt64
    /// The replica that deleted the record.
    public var nodeId: NodeId
    /// This replica's clock when it accepted the deletion.
    public var localDbVersion: UInt64

    /// Creates tombstone information from its three parts.
    @inlinable public init(dbVersion: UInt64, nodeId: NodeId, localDbVersion: UInt64) {
        self.dbVersion = dbVersion
        self.nodeId = nodeId
        self.localDbVersion = localDbVersion
    }

    /// The deletion as a column version, ranked above any column change.
    @inlinable public func asColumnVersion() -> ColumnVersion {
        ColumnVersion(
            colVersion: tombstoneColumnVersion, dbVersion: dbVersion, nodeId: nodeId,
            localDbVersion: localDbVersion)
    }
}
