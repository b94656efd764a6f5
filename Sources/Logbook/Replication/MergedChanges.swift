import LogbookCRDT
import LogbookStorage

/// What a merge logged: which changes it accepted and the offsets of the records it appended
/// for them (with the clock record after them; empty when nothing was accepted).
///
/// The accepted changes are kept as positions in the merged batch (`ReplicaState.merge`'s
/// answer), not copies: a caller that needs only their number, as replication does, never
/// pays for a copy of each; `accepted` builds them when asked.
public struct MergedChanges: Sendable {
    /// The batch merged, or a local write's own changes.
    let batch: [Change<String, String, Value>]
    /// Which of `batch` were accepted, at which local versions.
    let acceptance: AcceptedChanges
    /// The log offsets the merge's records took: contiguous, since a merge appends under
    /// the engine's lock.
    public var offsets: Range<UInt64>

    /// The number of changes accepted.
    public var acceptedCount: Int { acceptance.count }

    /// The accepted changes, with this replica's local versions, in batch order.
    public var accepted: [Change<String, String, Value>] {
        zip(acceptance.positions, acceptance.localDbVersions).map { position, localDbVersion in
            var change = batch[position]
            change.localDbVersion = localDbVersion
            return change
        }
    }

    /// Calls `body` with each accepted change of `batch` and the local version it took.
    func forEachAccepted(
        _ body: (Change<String, String, Value>, UInt64) throws(StorageError) -> Void
    ) throws(StorageError) {
        for index in acceptance.positions.indices {
            try body(batch[acceptance.positions[index]], acceptance.localDbVersions[index])
        }
    }
}
