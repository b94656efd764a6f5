/// The steps of `ReplicaState`'s local writes, as calls on the storage struct: within them
/// the entries are reached through `self` directly, with no retain or exclusivity check per
/// access, as in a merge (see the type's documentation).
extension ReplicaStorage {
    /// Throws when the entry numbered `number` is live and one of `fields`' columns has a
    /// version of `limit` or more.
    func checkColumnVersions(
        ofEntry number: Int, _ fields: [(String, Value)], below limit: UInt64
    ) throws(ColumnVersionAtLimit) {
        guard entries[number].status == .live else { return }
        for (column, _) in fields {
            try checkColumnVersion(ofEntry: number, column, below: limit)
        }
    }

    /// Throws when `column` of the entry numbered `number` has a version of `limit` or more.
    func checkColumnVersion(ofEntry number: Int, _ column: String, below limit: UInt64)
        throws(ColumnVersionAtLimit)
    {
        guard let version = entries[number].record.columnVersion(column)?.colVersion,
            version >= limit
        else { return }
        throw ColumnVersionAtLimit(column: column, colVersion: version)
    }

    /// `insertOrUpdate`'s write to the entry numbered `number`: the clock ticks, then a
    /// tombstoned record is left alone; otherwise each column's version goes up by one.
    mutating func write(
        _ fields: [(String, Value)], toEntry number: Int, recordId: String, nodeId: NodeId,
        flags: UInt32
    ) -> [Change<String, String, Value>] {
        let dbVersion = clock.tick()
        if entries[number].status == .tombstoned { return [] }
        makeLive(number)
        var changes: [Change<String, String, Value>] = []
        changes.reserveCapacity(fields.count)
        for (column, value) in fields {
            let colVersion = entries[number].record.writeLocally(
                column, value: value, dbVersion: dbVersion, nodeId: nodeId)
            changes.append(
                Change(
                    recordId: recordId, colName: column, value: value, colVersion: colVersion,
                    dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags))
        }
        noteChanged(number)
        return changes
    }

    /// The number of `recordId` when it is live and `fieldName` holds a value.
    func liveNumber(_ recordId: String, withField fieldName: String) -> Int? {
        guard let number = number(of: recordId), entries[number].status == .live,
            entries[number].record.field(fieldName) != nil
        else { return nil }
        return number
    }

    /// `deleteField`'s write to the entry numbered `number`, live with that field.
    mutating func deleteField(
        _ fieldName: String, ofEntry number: Int, recordId: String, nodeId: NodeId,
        flags: UInt32
    ) -> Change<String, String, Value> {
        let dbVersion = clock.tick()
        let colVersion = entries[number].record.writeLocally(
            fieldName, value: nil, dbVersion: dbVersion, nodeId: nodeId)
        noteChanged(number)
        return Change(
            recordId: recordId, colName: fieldName, value: nil, colVersion: colVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }
}
