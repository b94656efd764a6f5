/// The records a page of a replica's state may hold, by id: phase one of choosing a page in
/// record-id order (`ReplicaState.statePageCandidates(after:)`).
///
/// A page is chosen in two short visits to the replica with the sort between them, so a
/// caller that shares the replica under a lock holds it only for a walk over the entries
/// and for sharing the page's own records. The walk keeps each record's id and entry number,
/// never the record: the records of a large state that fall outside the page are neither
/// retained nor released, once per page of a state paged through.
public struct StatePageCandidates: Sendable {
    /// Where a candidate's changes come from.
    public enum Source: Sendable {
        /// The replica's entry with this number, looked up again when the page is built
        /// (and skipped if that entry no longer holds the id).
        case entry(Int)
        /// A record deletion kept outside the replica (a record that tombstone GC collected
        /// but still fences).
        case deletion(TombstoneInfo)
    }

    var candidates: [(id: String, source: Source)]
    /// How many candidates at the front are in ascending id order (`order(changesMax:)`).
    private(set) var orderedCount = 0

    init(candidates: [(id: String, source: Source)]) {
        self.candidates = candidates
    }

    /// Adds a record deletion kept outside the replica.
    public mutating func appendDeletion(id: String, _ deletion: TombstoneInfo) {
        candidates.append((id, .deletion(deletion)))
        orderedCount = 0
    }

    /// The number of candidates.
    public var count: Int { candidates.count }

    /// Puts the candidates with the smallest ids first, in ascending order: enough of them
    /// for a page of `changesMax` changes (each holds at least one change, except a record
    /// with no columns, whose page comes out shorter). Complexity: O(candidates) expected
    /// plus sorting the front. Runs outside the replica's lock.
    public mutating func order(changesMax: Int) {
        let taken = Swift.min(candidates.count, Swift.max(changesMax, 1))
        candidates.sortPrefix(taken, by: { $0.id < $1.id })
        orderedCount = taken
    }
}
