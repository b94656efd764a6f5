/// What `ReplicaState.write(_:flags:refusingColumnVersionsFrom:refusingDeletedRecords:skipping:)`
/// made.
public struct LocalWriteOutcome: Sendable {
    /// The changes made, in the writes' order.
    public var changes: [Change<String, String, Value>] = []
    /// The write that was refused, by its index in the call, and why; the writes after it
    /// were not made.
    public var refusal: (writeIndex: Int, reason: LocalWriteRefusal)?
}

/// Why a local write of a batch was refused before it changed anything, the clock included.
public enum LocalWriteRefusal: Error, Sendable, Equatable {
    /// A column it writes has a version at or above the caller's limit.
    case columnVersionAtLimit(ColumnVersionAtLimit)
    /// It sets fields of a deleted record (tombstoned, or one the caller's `isSkipped`
    /// names), which crdt-lite never revives: the write would be lost on every replica.
    case recordDeleted
}
