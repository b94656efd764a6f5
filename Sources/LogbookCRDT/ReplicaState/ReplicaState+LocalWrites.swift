extension ReplicaState {
    /// Sets fields of a record, creating it if needed; one change per field. Exactly
    /// `CRDT.insertOrUpdateWithFlags(_:flags:fields:)`: the clock ticks once, even for a
    /// tombstoned record (which is left alone, returning `[]`); each column's version goes up
    /// by one per write.
    @discardableResult
    public func insertOrUpdate(
        _ recordId: String, flags: UInt32 = 0, fields: [(String, Value)]
    ) -> [Change<String, String, Value>] {
        let number = storage.numberCreatingEntry(for: recordId, hash: storage.hash(recordId))
        return write(fields, toEntry: number, recordId: recordId, flags: flags)
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
        let number = storage.numberCreatingEntry(for: recordId, hash: storage.hash(recordId))
        if storage.entries[number].status == .live {
            for (column, _) in fields {
                try storage.entries[number].record.checkVersion(of: column, below: limit)
            }
        }
        return write(fields, toEntry: number, recordId: recordId, flags: flags)
    }

    /// The write of `insertOrUpdate` to the entry numbered `number`.
    private func write(
        _ fields: [(String, Value)], toEntry number: Int, recordId: String, flags: UInt32
    ) -> [Change<String, String, Value>] {
        let dbVersion = storage.clock.tick()
        if storage.entries[number].status == .tombstoned { return [] }
        storage.makeLive(number)
        var changes: [Change<String, String, Value>] = []
        changes.reserveCapacity(fields.count)
        for (column, value) in fields {
            let colVersion = storage.entries[number].record.writeLocally(
                column, value: value, dbVersion: dbVersion, nodeId: nodeId)
            changes.append(
                Change(
                    recordId: recordId, colName: column, value: value, colVersion: colVersion,
                    dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags))
        }
        storage.noteChanged(number)
        return changes
    }

    /// Deletes a record, leaving a tombstone; nil, without a tick, when it is already
    /// tombstoned. An id never written may be deleted (it is tombstoned).
    @discardableResult
    public func deleteRecord(_ recordId: String, flags: UInt32 = 0) -> Change<
        String, String, Value
    >? {
        let number = storage.numberCreatingEntry(for: recordId, hash: storage.hash(recordId))
        if storage.entries[number].status == .tombstoned { return nil }
        let dbVersion = storage.clock.tick()
        storage.tombstone(
            number, TombstoneInfo(dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion))
        return Change(
            recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }

    /// Deletes one field, keeping its column version so stale writes lose; nil, without a
    /// tick, when the record is not live or the field is absent or already deleted.
    @discardableResult
    public func deleteField(_ recordId: String, fieldName: String, flags: UInt32 = 0)
        -> Change<String, String, Value>?
    {
        guard let number = liveNumber(recordId, withField: fieldName) else { return nil }
        return deleteField(fieldName, ofEntry: number, recordId: recordId, flags: flags)
    }

    /// `deleteField`, refused before anything changes when the field's version is `limit`
    /// or more; one lookup of the record, as for `insertOrUpdate`.
    @discardableResult
    public func deleteField(
        _ recordId: String, fieldName: String, flags: UInt32 = 0,
        refusingColumnVersionsFrom limit: UInt64
    ) throws(ColumnVersionAtLimit) -> Change<String, String, Value>? {
        guard let number = liveNumber(recordId, withField: fieldName) else { return nil }
        try storage.entries[number].record.checkVersion(of: fieldName, below: limit)
        return deleteField(fieldName, ofEntry: number, recordId: recordId, flags: flags)
    }

    /// The number of `recordId` when it is live and `fieldName` holds a value.
    private func liveNumber(_ recordId: String, withField fieldName: String) -> Int? {
        guard let number = storage.number(of: recordId), storage.entries[number].status == .live,
            storage.entries[number].record.field(fieldName) != nil
        else { return nil }
        return number
    }

    private func deleteField(
        _ fieldName: String, ofEntry number: Int, recordId: String, flags: UInt32
    ) -> Change<String, String, Value> {
        let dbVersion = storage.clock.tick()
        let colVersion = storage.entries[number].record.writeLocally(
            fieldName, value: nil, dbVersion: dbVersion, nodeId: nodeId)
        storage.noteChanged(number)
        return Change(
            recordId: recordId, colName: fieldName, value: nil, colVersion: colVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }
}

extension Record<String, Value> {
    /// Throws when `column`'s version is `limit` or more.
    func checkVersion(of column: String, below limit: UInt64) throws(ColumnVersionAtLimit) {
        guard let version = columnVersion(column)?.colVersion, version >= limit else { return }
        throw ColumnVersionAtLimit(column: column, colVersion: version)
    }
}
