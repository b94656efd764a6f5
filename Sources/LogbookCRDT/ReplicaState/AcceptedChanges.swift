/// Which changes of a merged batch were accepted, and the local version each was accepted
/// at: `ReplicaState.merge(_:)`'s answer, in batch order. Two flat arrays instead of copies
/// of the changes, so a caller that logs the accepted changes reads them from its batch.
public struct AcceptedChanges: Sendable, Equatable {
    /// Positions in the merged batch, ascending.
    public private(set) var positions: [Int] = []
    /// The local version of each accepted change, parallel to `positions`.
    public private(set) var localDbVersions: [UInt64] = []

    /// No accepted changes.
    public init() {}

    /// The number of accepted changes.
    public var count: Int { positions.count }

    mutating func reserveCapacity(_ capacity: Int) {
        positions.reserveCapacity(capacity)
        localDbVersions.reserveCapacity(capacity)
    }

    mutating func append(position: Int, localDbVersion: UInt64) {
        positions.append(position)
        localDbVersions.append(localDbVersion)
    }
}
