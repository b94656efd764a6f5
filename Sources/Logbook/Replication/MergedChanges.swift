import LogbookCRDT

/// What a merge or a local write logged: which changes it accepted and the offsets of the
/// records it appended for them (with the clock record after them; empty when nothing was
/// accepted).
///
/// A merge's accepted changes are kept as positions in the merged batch
/// (`ReplicaState.merge`'s answer), not copies: a caller that needs only their number, as
/// replication does, never pays for a copy of each; `accepted` builds them when asked.
public struct MergedChanges: Sendable {
    /// The batch merged, or a local write's own changes.
    let batch: [Change<String, String, Value>]
    /// Which of `batch` were accepted, at which local versions; nil for a local write, whose
    /// changes are all accepted and carry their local versions.
    let acceptance: AcceptedChanges?
    /// The log offsets the merge's records took: contiguous, since a merge appends under
    /// the engine's lock.
    public var offsets: Range<UInt64>
    /// Queued for the Logbook's observers, to be delivered once it holds.
    var isQueuedForObservers = false

    /// The number of changes accepted.
    public var acceptedCount: Int { acceptance?.count ?? batch.count }

    /// The accepted changes, with this replica's local versions, in batch order.
    public var accepted: [Change<String, String, Value>] {
        guard let acceptance else { return batch }
        return zip(acceptance.positions, acceptance.localDbVersions).map {
            position, localDbVersion in
            var change = batch[position]
            change.localDbVersion = localDbVersion
            return change
        }
    }
}
