extension ReplicaState {
    /// Sets fields of a record, creating it if needed; one change per field. Exactly
    /// `CRDT.insertOrUpdateWithFlags(_:flags:fields:)`: the clock ticks once, even for a
    /// tombstoned record (which is left alone, returning `[]`); each column's version goes up
    /// by one per write.
    @discardableResult
    public func insertOrUpdate(
        _ recordId: String, flags: UInt32 = 0, fields: [(String, Value)]
    ) -> [Change<String, String, Value>] {
        storage.insertOrUpdate(recordId, fields: fields, nodeId: nodeId, flags: flags)
    }

    /// `insertOrUpdate`, refused before anything changes when a column it writes already
    /// has a version of `limit` or more (a live record's only): the check and the write
    /// share one lookup of the record, which the engine's write path would otherwise pay
    /// twice.
    @discardableResult
    public func insertOrUpdate(
        _ recordId: String, flags: UInt32 = 0, fields: [(String, Value)],
        refusingColumnVersionsFrom limit: UInt64
    ) throws(ColumnVersionAtLimit) -> [Change<String, String, Value>] {
        var changes: [Change<String, String, Value>] = []
        try insertOrUpdate(
            recordId, flags: flags, fields: fields, refusingColumnVersionsFrom: limit,
            reusing: &changes)
        return changes
    }

    /// `insertOrUpdate(_:flags:fields:refusingColumnVersionsFrom:)`, leaving its changes in
    /// `changes` (none when refused), written over the elements it held: a caller that keeps
    /// one array for its writes, and lets go of the copies it hands out before the next,
    /// allocates no array per write and destroys no change through the generic type's
    /// value witnesses (the engine's one-call writes do; `WrittenChanges`).
    public func insertOrUpdate(
        _ recordId: String, flags: UInt32 = 0, fields: [(String, Value)],
        refusingColumnVersionsFrom limit: UInt64,
        reusing changes: inout [Change<String, String, Value>]
    ) throws(ColumnVersionAtLimit) {
        var written = WrittenChanges(over: changes)
        changes = []
        defer { changes = written.finished() }
        written.reserveCapacity(forMore: fields.count)
        // The hash is taken inside the storage's own call: an argument read from `storage`
        // would be a second exclusivity-checked access of it.
        try storage.insertOrUpdate(
            recordId, hash: nil, fields: fields, nodeId: nodeId, flags: flags, limit: limit,
            usingColumnsHint: true, into: &written)
    }

    /// Deletes a record, leaving a tombstone; nil, without a tick, when it is already
    /// tombstoned. An id never written may be deleted (it is tombstoned).
    @discardableResult
    public func deleteRecord(_ recordId: String, flags: UInt32 = 0) -> Change<
        String, String, Value
    >? {
        storage.deleteRecord(
            recordId, hash: storage.keyHash.hash(recordId), nodeId: nodeId, flags: flags,
            usingColumnsHint: true)
    }

    /// Deletes one field, keeping its column version so stale writes lose; nil, without a
    /// tick, when the record is not live or the field is absent or already deleted.
    @discardableResult
    public func deleteField(_ recordId: String, fieldName: String, flags: UInt32 = 0)
        -> Change<String, String, Value>?
    {
        guard
            let number = storage.liveNumber(
                recordId, withField: fieldName, prefetchingColumns: true)
        else { return nil }
        return storage.deleteField(
            fieldName, ofEntry: number, recordId: recordId, nodeId: nodeId, flags: flags)
    }

    /// `deleteField`, refused before anything changes when the field's version is `limit`
    /// or more; one lookup of the record, as for `insertOrUpdate`.
    @discardableResult
    public func deleteField(
        _ recordId: String, fieldName: String, flags: UInt32 = 0,
        refusingColumnVersionsFrom limit: UInt64
    ) throws(ColumnVersionAtLimit) -> Change<String, String, Value>? {
        try storage.deleteField(
            recordId, hash: nil, fieldName: fieldName, nodeId: nodeId, flags: flags, limit: limit,
            usingColumnsHint: true)
    }
}

extension ReplicaState {
    /// Makes `writes` in order, each exactly as its own call (`insertOrUpdate`,
    /// `deleteField`, `deleteRecord` with `refusingColumnVersionsFrom: limit`) would, and
    /// returns their changes in order. Faster than the calls one by one: the records of the
    /// writes a few places ahead are loaded into the cache while a write is made.
    ///
    /// A write to a record `isSkipped` names makes no change, as the engine's fence makes
    /// `insertOrUpdate` and `deleteRecord` (not `deleteField`, which needs a live record) do.
    /// The first write refused for a column at `limit` ends the call: the writes before it
    /// stay made, and the outcome names it. With `refusingDeletedRecords`, so does the first
    /// `insertOrUpdate` of a tombstoned or skipped record (`LocalWriteRefusal.recordDeleted`),
    /// which crdt-lite's call would leave alone without a word (after a tick of the clock).
    public func write(
        _ writes: [LocalWrite], flags: UInt32 = 0, refusingColumnVersionsFrom limit: UInt64 = .max,
        refusingDeletedRecords: Bool = false, skipping isSkipped: (String) -> Bool = { _ in false }
    ) -> LocalWriteOutcome {
        storage.write(
            writes, nodeId: nodeId, flags: flags, limit: limit,
            refusingDeletedRecords: refusingDeletedRecords, skipping: isSkipped)
    }
}
