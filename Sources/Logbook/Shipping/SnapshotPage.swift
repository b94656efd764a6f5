import LogbookCRDT

/// One page of a replica's state, records in ascending id order: what `GET /snapshot`
/// sends a page at a time, so no answer (and no follower's buffer) holds the whole state.
public struct SnapshotPage: Sendable {
    /// The page's changes: every change of each record it holds (a record is never split),
    /// in `getChangesSince`'s order.
    public var changes: [Change<String, String, Value>]
    /// The id to ask after for the next page; nil on the last page.
    public var nextAfter: String?
}

extension Logbook {
    /// The records after `after` (all when nil) in ascending id order, whole records until
    /// at least `changesMax` changes (a record larger than that comes alone).
    ///
    /// A follower takes the durable offset with the first page and continues from it once
    /// every page is merged: the state only grows while it pages (each later page is at
    /// least the state of the first), so the union covers everything below that offset.
    /// Complexity: one walk over the ids after `after` under the lock, then O(those ids)
    /// expected outside it to choose the page (see `ChangedState.firstById`).
    public func snapshotPage(after: String?, changesMax: Int) -> SnapshotPage {
        let (page, more) = snapshotState(idsAfter: after).firstById(changesMax: changesMax)
        let changes = page.changes()
        return SnapshotPage(changes: changes, nextAfter: more ? page.entries.last?.id : nil)
    }
}
