import LogbookCRDT

/// One page of a replica's state, records in ascending id order: what `GET /snapshot`
/// sends a page at a time, so no answer (and no follower's buffer) holds the whole state.
public struct SnapshotPage: Sendable {
    /// The page's changes: every change of each record it holds (a record is never split).
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
    /// Complexity: a walk and sort of the state per page, outside the lock.
    public func snapshotPage(after: String?, changesMax: Int) -> SnapshotPage {
        precondition(changesMax > 0, "a page holds at least one change")
        var changes = snapshotChanges()
        if let after { changes.removeAll { $0.recordId <= after } }
        changes.sort { $0.recordId < $1.recordId }
        var end = 0
        while end < changes.count && end < changesMax {
            let record = changes[end].recordId
            while end < changes.count && changes[end].recordId == record { end += 1 }
        }
        let more = end < changes.count
        changes.removeSubrange(end...)
        return SnapshotPage(changes: changes, nextAfter: more ? changes.last?.recordId : nil)
    }
}
