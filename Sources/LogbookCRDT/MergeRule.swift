/// Decides whether a remote column change replaces the local one.
///
/// Consulted only for column changes whose column already has a local version; a record
/// deletion of a live record is always accepted and never reaches the rule.
public protocol MergeRule {
    /// Returns true when the remote version should win over the local one.
    func shouldAccept(
        localCol: UInt64, localDb: UInt64, localNode: NodeId,
        remoteCol: UInt64, remoteDb: UInt64, remoteNode: NodeId
    ) -> Bool
}

/// Last-writer-wins: higher `colVersion`, then higher `dbVersion`, then strictly higher
/// `nodeId`. An identical echo of the local version is rejected.
public struct DefaultMergeRule: MergeRule, Sendable {
    /// Creates the default rule.
    public init() {}

    /// Compares (colVersion, dbVersion, nodeId) lexicographically; accepts only if greater.
    @inlinable
    public func shouldAccept(
        localCol: UInt64, localDb: UInt64, localNode: NodeId,
        remoteCol: UInt64, remoteDb: UInt64, remoteNode: NodeId
    ) -> Bool {
        if remoteCol != localCol { return remoteCol > localCol }
        if remoteDb != localDb { return remoteDb > localDb }
        return remoteNode > localNode
    }
}
