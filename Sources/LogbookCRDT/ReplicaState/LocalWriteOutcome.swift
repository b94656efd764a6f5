/// What `ReplicaState.write(_:flags:refusingColumnVersionsFrom:skipping:)` made.
public struct LocalWriteOutcome: Sendable {
    /// The changes made, in the writes' order.
    public var changes: [Change<String, String, Value>] = []
    /// The write that was refused, by its index in the call, and why; the writes after it
    /// were not made.
    public var refusal: (writeIndex: Int, reason: ColumnVersionAtLimit)?
}
