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

    /// `ReplicaState.insertOrUpdate(_:flags:fields:)`: the record's entry found or made,
    /// then written (`write(_:toEntry:recordId:nodeId:flags:into:)`).
    mutating func insertOrUpdate(
        _ recordId: String, fields: [(String, Value)], nodeId: NodeId, flags: UInt32
    ) -> [Change<String, String, Value>] {
        let hash = hash(recordId)
        let number = numberCreatingEntry(for: recordId, hash: hash, prefetchingColumns: true)
        var changes = WrittenChanges(over: [])
        changes.reserveCapacity(forMore: fields.count)
        write(
            fields, toEntry: number, recordId: recordId, nodeId: nodeId, flags: flags,
            into: &changes)
        noteColumnsLocation(of: number, hash: hash)
        return changes.finished()
    }

    /// `insertOrUpdate`'s write to the entry numbered `number`: the clock ticks, then a
    /// tombstoned record is left alone; otherwise each column's version goes up by one. The
    /// changes are appended to `changes`.
    mutating func write(
        _ fields: [(String, Value)], toEntry number: Int, recordId: String, nodeId: NodeId,
        flags: UInt32, into changes: inout WrittenChanges
    ) {
        guard let dbVersion = beginLocalWrite(toEntry: number) else { return }
        for (column, value) in fields {
            writeField(
                column, value, at: entries[number].record.slot(of: column), toEntry: number,
                recordId: recordId, dbVersion: dbVersion, nodeId: nodeId, flags: flags,
                into: &changes)
        }
        noteChanged(number)
    }

    /// What every `insertOrUpdate` begins with: the clock ticks (even for a tombstoned
    /// record, as crdt-lite's does), then the entry is made live. Returns the write's
    /// version, or nil for a tombstoned record, which is left alone.
    @inline(__always)
    private mutating func beginLocalWrite(toEntry number: Int) -> UInt64? {
        let dbVersion = clock.tick()
        if entries[number].status == .tombstoned { return nil }
        makeLive(number)
        return dbVersion
    }

    /// One field of a local write, to the column at `position` of the live entry numbered
    /// `number` (nil: a new column), at `dbVersion`; appends its change to `changes`.
    @inline(__always)
    private mutating func writeField(
        _ column: String, _ value: Value, at position: Int?, toEntry number: Int,
        recordId: String, dbVersion: UInt64, nodeId: NodeId, flags: UInt32,
        into changes: inout WrittenChanges
    ) {
        let colVersion = entries[number].record.writeLocally(
            column, at: position, value: value, dbVersion: dbVersion, nodeId: nodeId)
        changes.append(
            recordId: recordId, colName: column, value: value, colVersion: colVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }

    /// The number of `recordId` (whose hash is `hash`, computed when not given) when it is
    /// live and `fieldName` holds a value; `prefetchingColumns` as for
    /// `number(of:hash:prefetchingColumns:)`.
    func liveNumber(
        _ recordId: String, withField fieldName: String, hash: UInt64? = nil,
        prefetchingColumns: Bool
    ) -> Int? {
        guard let number = number(of: recordId, hash: hash, prefetchingColumns: prefetchingColumns),
            entries[number].status == .live,
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

extension ReplicaStorage {
    /// `ReplicaState.write(_:flags:refusingColumnVersionsFrom:skipping:)`: each write
    /// as its own call would make it, in order, with the records of the writes a few places
    /// ahead being loaded into the cache meanwhile; stops at the first write refused.
    mutating func write(
        _ writes: [LocalWrite], nodeId: NodeId, flags: UInt32, limit: UInt64,
        refusingDeletedRecords: Bool, skipping isSkipped: (String) -> Bool
    ) -> LocalWriteOutcome {
        var outcome = LocalWriteOutcome()
        var changes = WrittenChanges(over: [])
        changes.reserveCapacity(forMore: writes.count)
        writes.withUnsafeBufferPointer { writes in
            forEachPrefetched(count: writes.count, recordId: { writes[$0].recordId }) {
                storage, index, hash in
                guard outcome.refusal == nil else { return }
                do throws(LocalWriteRefusal) {
                    try storage.make(
                        writes[index], hash: hash, nodeId: nodeId, flags: flags, limit: limit,
                        refusingDeletedRecords: refusingDeletedRecords, skipping: isSkipped,
                        into: &changes)
                } catch {
                    outcome.refusal = (index, error)
                }
            }
        }
        outcome.changes = changes.finished()
        return outcome
    }

    /// Makes one write of a batch through the same function as `ReplicaState`'s single call
    /// for it with `refusingColumnVersionsFrom: limit` (after the engine's fence check,
    /// `isSkipped`, for the writes that make one), appending its changes to `changes`.
    @inline(__always)
    private mutating func make(
        _ write: LocalWrite, hash: UInt64, nodeId: NodeId, flags: UInt32, limit: UInt64,
        refusingDeletedRecords: Bool, skipping isSkipped: (String) -> Bool,
        into changes: inout WrittenChanges
    ) throws(LocalWriteRefusal) {
        switch write {
        case .insertOrUpdate(let recordId, let fields):
            if isSkipped(recordId) {
                if refusingDeletedRecords { throw .recordDeleted }
                return
            }
            // One more lookup, of a record the batch's prefetch has brought into the cache.
            if refusingDeletedRecords, let number = number(of: recordId, hash: hash),
                entries[number].status == .tombstoned
            {
                throw .recordDeleted
            }
            do throws(ColumnVersionAtLimit) {
                try insertOrUpdate(
                    recordId, hash: hash, fields: fields, nodeId: nodeId, flags: flags,
                    limit: limit, usingColumnsHint: false, into: &changes)
            } catch {
                throw .columnVersionAtLimit(error)
            }
        case .deleteField(let recordId, let fieldName):
            do throws(ColumnVersionAtLimit) {
                if let change = try deleteField(
                    recordId, hash: hash, fieldName: fieldName, nodeId: nodeId, flags: flags,
                    limit: limit, usingColumnsHint: false)
                {
                    changes.append(change)
                }
            } catch {
                throw .columnVersionAtLimit(error)
            }
        case .deleteRecord(let recordId):
            if isSkipped(recordId) { return }
            if let change = deleteRecord(
                recordId, hash: hash, nodeId: nodeId, flags: flags, usingColumnsHint: false)
            {
                changes.append(change)
            }
        }
    }

    /// `insertOrUpdate` of `recordId` (whose hash is `hash`, computed when not given),
    /// refused before anything changes when a column it writes has a version of `limit` or
    /// more (a live record's only); appends its changes to `changes`. The check and the
    /// write share one lookup. `usingColumnsHint` for a single call: its lookup prefetches
    /// the hinted columns and its write keeps the hint. Not for a batch's writes, which
    /// prefetch each record a dozen writes ahead themselves: reading and keeping the hints,
    /// which nothing had prefetched, cost them a tenth of their rate.
    @inline(__always)
    mutating func insertOrUpdate(
        _ recordId: String, hash: UInt64?, fields: [(String, Value)], nodeId: NodeId,
        flags: UInt32, limit: UInt64, usingColumnsHint: Bool,
        into changes: inout WrittenChanges
    ) throws(ColumnVersionAtLimit) {
        let hash = hash ?? self.hash(recordId)
        let number = numberCreatingEntry(
            for: recordId, hash: hash, prefetchingColumns: usingColumnsHint)
        if fields.count == 1, let (column, value) = fields.first {
            try write(
                column, value, toEntry: number, recordId: recordId, nodeId: nodeId, flags: flags,
                limit: limit, into: &changes)
        } else {
            try checkColumnVersions(ofEntry: number, fields, below: limit)
            write(
                fields, toEntry: number, recordId: recordId, nodeId: nodeId, flags: flags,
                into: &changes)
        }
        if usingColumnsHint { noteColumnsLocation(of: number, hash: hash) }
    }

    /// A write of one field: `checkColumnVersions` and `write` as one, sharing the search
    /// for the column (the most common local write; the search touches the record's memory
    /// first, the rest is cheap, so the gain is in the searches saved).
    @inline(__always)
    private mutating func write(
        _ column: String, _ value: Value, toEntry number: Int, recordId: String,
        nodeId: NodeId, flags: UInt32, limit: UInt64,
        into changes: inout WrittenChanges
    ) throws(ColumnVersionAtLimit) {
        let wasLive = entries[number].status == .live
        let position = wasLive ? entries[number].record.slot(of: column) : nil
        if let position {
            let held = entries[number].record.slots[position].version.colVersion
            if held >= limit { throw ColumnVersionAtLimit(column: column, colVersion: held) }
        }
        guard let dbVersion = beginLocalWrite(toEntry: number) else { return }
        // A record that was not live is searched afresh: nothing above looked at it.
        writeField(
            column, value, at: wasLive ? position : entries[number].record.slot(of: column),
            toEntry: number, recordId: recordId, dbVersion: dbVersion, nodeId: nodeId,
            flags: flags, into: &changes)
        noteChanged(number)
    }

    /// `deleteField` of `recordId` (whose hash is `hash`, computed when not given), refused
    /// before anything changes when the field's version is `limit` or more; nil, without a
    /// tick, when the record is not live or the field is absent or already deleted. With
    /// `usingColumnsHint`, its lookup prefetches the hinted columns; the deletion leaves them
    /// where they are, so the hint stands.
    @inline(__always)
    mutating func deleteField(
        _ recordId: String, hash: UInt64?, fieldName: String, nodeId: NodeId, flags: UInt32,
        limit: UInt64, usingColumnsHint: Bool
    ) throws(ColumnVersionAtLimit) -> Change<String, String, Value>? {
        guard
            let number = liveNumber(
                recordId, withField: fieldName, hash: hash, prefetchingColumns: usingColumnsHint)
        else {
            return nil
        }
        try checkColumnVersion(ofEntry: number, fieldName, below: limit)
        return deleteField(
            fieldName, ofEntry: number, recordId: recordId, nodeId: nodeId, flags: flags)
    }

    /// `deleteRecord` of `recordId` (whose hash is `hash`); nil, without a tick, when it is
    /// already tombstoned. With `usingColumnsHint`, its lookup prefetches the hinted columns
    /// (dropping them touches their storage); the hint is left as it is, stale, until the
    /// tombstone is forgotten and the slot with it.
    @inline(__always)
    mutating func deleteRecord(
        _ recordId: String, hash: UInt64, nodeId: NodeId, flags: UInt32, usingColumnsHint: Bool
    ) -> Change<String, String, Value>? {
        let number = numberCreatingEntry(
            for: recordId, hash: hash, prefetchingColumns: usingColumnsHint)
        if entries[number].status == .tombstoned { return nil }
        return deleteRecord(number, recordId: recordId, nodeId: nodeId, flags: flags)
    }

    /// `deleteRecord`'s write to the entry numbered `number`, not tombstoned.
    mutating func deleteRecord(_ number: Int, recordId: String, nodeId: NodeId, flags: UInt32)
        -> Change<String, String, Value>
    {
        let dbVersion = clock.tick()
        tombstone(
            number, TombstoneInfo(dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion))
        return Change(
            recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
            dbVersion: dbVersion, nodeId: nodeId, localDbVersion: dbVersion, flags: flags)
    }
}
