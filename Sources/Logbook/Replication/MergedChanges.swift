import LogbookCRDT

/// What a merge logged: the changes it accepted and the offsets of the records it appended
/// for them (with the clock record after them; empty when nothing was accepted).
public struct MergedChanges: Sendable {
    /// The accepted changes, with this replica's local versions.
    public var accepted: [Change<String, String, Value>]
    /// The log offsets the merge's records took: contiguous, since a merge appends under
    /// the engine's lock.
    public var offsets: Range<UInt64>
}
