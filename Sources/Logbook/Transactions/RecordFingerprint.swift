import LogbookCRDT

/// What a transaction saw of one record, to tell at commit whether it changed since: any
/// write or merge that changes a live record raises its highest local version (each takes a
/// fresh tick of the local clock), and a deletion or a fence changes its kind.
enum RecordFingerprint: Equatable {
    /// No such record.
    case absent
    /// Live, with this highest local version.
    case live(highestLocalDbVersion: UInt64)
    /// Deleted: tombstoned, or fenced by tombstone GC.
    case deleted

    /// The record `recordId` of `crdt` as it is now, with the fence `isFenced` (call under
    /// the engine's lock).
    static func of(
        _ recordId: String, in crdt: ReplicaState, isFenced: Bool
    ) -> (fingerprint: RecordFingerprint, record: Record<String, Value>?) {
        if isFenced || crdt.isTombstoned(recordId) { return (.deleted, nil) }
        guard let record = crdt.getRecord(recordId) else { return (.absent, nil) }
        return (.live(highestLocalDbVersion: record.highestLocalDbVersion), record)
    }
}
