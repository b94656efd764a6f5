import LogbookCRDT

/// The door every change passes before it is merged or logged: local writes, remote
/// changes from clients, `logbook append`, importers and peers' logs and snapshots all go
/// through `Logbook`'s write methods, which call these checks first.
///
/// A refused call changes nothing (no change of it is merged, no clock moves, nothing is
/// logged) and leaves the replica writable. The checks use `ChangeLimits`, the constants the
/// change-record decoder enforces, so whatever is admitted reads back.
package enum ChangeAdmission {
    /// Checks remote changes against every stateless bound; throws `.invalidChange` naming
    /// the first change that breaks one. Complexity: O(total size of the values).
    static func checkRemote(_ changes: [Change<String, String, Value>]) throws(LogbookError) {
        // By index, not `enumerated()`: that copies every change (retains and releases of
        // its id, column and value) only to read it.
        for index in changes.indices {
            if let reason = reasonToRefuse(changes[index]) {
                throw refusal(
                    reason, recordId: changes[index].recordId, column: changes[index].colName,
                    index: index, of: changes.count)
            }
        }
    }

    /// A local write's id and column names in Unicode NFC (`CanonicalText`: as Swift
    /// compares strings they are the ones given, and peers compare bytes), checked with its
    /// values; throws `.invalidChange` for the first field that breaks a bound. Inlined: a
    /// plain write's shortcut is a few comparisons, and called it cost a retain of the fields.
    /// `Logbook.insertOrUpdate` takes the two steps itself (`isPlainLocalWrite`, then
    /// `admitLocalWriteChecked`), so that a plain write goes on with its own arguments.
    @inline(__always)
    static func admitLocalWrite(recordId: String, fields: [(String, Value)])
        throws(LogbookError) -> (recordId: String, fields: [(String, Value)])
    {
        if isPlainLocalWrite(recordId: recordId, fields: fields) { return (recordId, fields) }
        return try admitLocalWriteChecked(recordId: recordId, fields: fields)
    }

    /// `admitLocalWrite` for a write that is not plain: each check on its own.
    @inline(never)
    static func admitLocalWriteChecked(recordId: String, fields: [(String, Value)])
        throws(LogbookError) -> (recordId: String, fields: [(String, Value)])
    {
        let recordId = CanonicalText.nfc(recordId)
        var fields = fields
        // By index: `allSatisfy` iterates copies, each field's name and value retained and
        // released only to read the name.
        if !fields.indices.allSatisfy({ CanonicalText.isNFC(fields[$0].0) }) {
            fields = fields.map { (CanonicalText.nfc($0.0), $0.1) }
        }
        // NFC now, so only the sizes are left to check (the NFC check is not made twice).
        if let reason = sizeReasonToRefuse(recordId: recordId) {
            throw refusal(reason, recordId: recordId, column: nil)
        }
        // By index, with the checks inlined up to their refusals and no `??` (its autoclosure
        // captures the field): a field passed out of line was copied (its name and value
        // retained and released) only to be read.
        for index in fields.indices {
            let reason =
                if let reason = sizeReasonToRefuse(column: fields[index].0) {
                    reason
                } else {
                    reasonToRefuse(fields[index].1)
                }
            if let reason { throw refusal(reason, recordId: recordId, column: fields[index].0) }
        }
        return (recordId, fields)
    }

    /// Checks that merging `changes` cannot take the clock past `ChangeLimits.versionMax`:
    /// each moves it one past the part of its `dbVersion` it follows
    /// (`LogicalClock.followed(_:at:)`). Call under the lock.
    static func checkClockRoom(
        clock: UInt64, merging changes: [Change<String, String, Value>]
    ) throws(LogbookError) {
        var end = LogicalClock()
        end.setTime(clock)
        for index in changes.indices { end.update(changes[index].dbVersion) }
        guard end.currentTime() > ChangeLimits.versionMax else { return }
        throw LogbookError(
            .limitExceeded,
            "merging \(changes.count) change(s) would move the clock from \(clock) past "
                + "\(ChangeLimits.versionMax) (ChangeLimits.versionMax); nothing was merged")
    }

    /// Checks remote changes from a client against `ChangeLimits.clientVersionMax(clock:)`; throws
    /// `.invalidChange` naming the first change over it. Call under the lock.
    static func checkClientVersions(
        clock: UInt64, merging changes: [Change<String, String, Value>]
    ) throws(LogbookError) {
        let limit = ChangeLimits.clientVersionMax(clock: clock)
        guard let (index, name, value) = firstPastClientLimit(changes, limit: limit) else {
            return
        }
        throw refusal(
            "\(name) \(value) is past \(limit), the highest version a replica whose "
                + "clock is at \(clock) takes from a client (2^62, or 2^32 past its clock; "
                + "ChangeLimits.clientVersionMax): a client that followed it could run out "
                + "of versions",
            recordId: changes[index].recordId, column: changes[index].colName, index: index,
            of: changes.count)
    }

    /// The first change whose `dbVersion`, or a column change's `colVersion`, is over
    /// `limit` (a `ChangeLimits.clientVersionMax`): its index, which version, and its value.
    /// The door of a node's clients and of a hub stream's.
    package static func firstPastClientLimit(
        _ changes: [Change<String, String, Value>], limit: UInt64
    ) -> (index: Int, version: String, value: UInt64)? {
        for index in changes.indices {
            let change = changes[index]
            if change.dbVersion > limit { return (index, "dbVersion", change.dbVersion) }
            if change.colName != nil && change.colVersion > limit {
                return (index, "colVersion", change.colVersion)
            }
        }
        return nil
    }

    /// Checks that a local write can take a new version: the clock must be below
    /// `ChangeLimits.versionMax`. (Each written column's version is checked by the replica
    /// in the write's own lookup; `refusal(_:recordId:)` words that refusal.) Call under the
    /// lock.
    static func checkClockRoom(clock: UInt64) throws(LogbookError) {
        guard clock < ChangeLimits.versionMax else {
            throw LogbookError(
                .limitExceeded,
                "the clock is at \(clock), the largest version (ChangeLimits.versionMax); "
                    + "this replica can take no more writes")
        }
    }

    /// Checks that `count` local writes can each take a new version: each ticks the clock
    /// at most once, and before each the clock must be below `ChangeLimits.versionMax`.
    /// Call under the lock.
    static func checkClockRoom(clock: UInt64, writes count: Int) throws(LogbookError) {
        guard count > 0 else { return }
        let (last, overflow) = clock.addingReportingOverflow(UInt64(count - 1))
        guard overflow || last >= ChangeLimits.versionMax else { return }
        throw LogbookError(
            .limitExceeded,
            "\(count) write(s) would move the clock from \(clock) past "
                + "\(ChangeLimits.versionMax) (ChangeLimits.versionMax); nothing was written")
    }

    /// The checks of a field's deletion: the record id's and the field name's; both as they
    /// go in (NFC).
    static func admitFieldDeletion(recordId: String, fieldName: String) throws(LogbookError)
        -> (recordId: String, fieldName: String)
    {
        let recordId = try admitLocalWrite(recordId: recordId, fields: []).recordId
        let fieldName = CanonicalText.nfc(fieldName)
        if let reason = sizeReasonToRefuse(column: fieldName) {
            throw refusal(reason, recordId: recordId, column: fieldName)
        }
        return (recordId, fieldName)
    }

    /// `admitLocalWrite(recordId:fields:)` for a write of a batch, and the field name check
    /// `deleteField` makes; the write as it goes in (NFC).
    static func admit(_ write: LocalWrite) throws(LogbookError) -> LocalWrite {
        switch write {
        case .insertOrUpdate(let recordId, let fields):
            let (recordId, fields) = try admitLocalWrite(recordId: recordId, fields: fields)
            return .insertOrUpdate(recordId, fields: fields)
        case .deleteField(let recordId, let fieldName):
            let (recordId, fieldName) = try admitFieldDeletion(
                recordId: recordId, fieldName: fieldName)
            return .deleteField(recordId, fieldName: fieldName)
        case .deleteRecord(let recordId):
            return .deleteRecord(try admitLocalWrite(recordId: recordId, fields: []).recordId)
        }
    }

    /// A local write refused because a column's version is at `ChangeLimits.versionMax`.
    static func refusal(_ reason: LocalWriteRefusal, recordId: String) -> LogbookError {
        switch reason {
        case .columnVersionAtLimit(let limit): return refusal(limit, recordId: recordId)
        case .recordDeleted: return deletedRecordRefusal(recordId: recordId)
        }
    }

    /// The refusal of a write that sets fields of a deleted record.
    static func deletedRecordRefusal(recordId: String) -> LogbookError {
        refusal(
            "the record is deleted, and crdt-lite never revives a deleted record (its delete "
                + "wins on every replica); write it under a new id", recordId: recordId,
            column: nil, code: .recordDeleted)
    }

    static func refusal(_ limit: ColumnVersionAtLimit, recordId: String) -> LogbookError {
        refusal(
            "its colVersion is \(limit.colVersion), the largest version (ChangeLimits.versionMax)",
            recordId: recordId, column: limit.column, code: .limitExceeded)
    }

    // MARK: The bounds

    /// Why a remote change must be refused, or nil.
    static func reasonToRefuse(_ change: Change<String, String, Value>) -> String? {
        if change.dbVersion > ChangeLimits.versionMax {
            return "dbVersion \(change.dbVersion) is over \(ChangeLimits.versionMax) "
                + "(ChangeLimits.versionMax)"
        }
        if let reason = reasonToRefuse(recordId: change.recordId) { return reason }
        // A record deletion's colVersion is crdt-lite's marker, UInt64.max; it is not logged.
        guard let column = change.colName else { return nil }
        if change.colVersion > ChangeLimits.versionMax {
            return "colVersion \(change.colVersion) is over \(ChangeLimits.versionMax) "
                + "(ChangeLimits.versionMax)"
        }
        if let reason = reasonToRefuse(column: column) { return reason }
        return change.value.flatMap(reasonToRefuse)
    }

    static func reasonToRefuse(recordId: String) -> String? {
        sizeReasonToRefuse(recordId: recordId)
            ?? CanonicalText.reasonToRefuse(recordId, what: "record id")
    }

    static func reasonToRefuse(column: String) -> String? {
        sizeReasonToRefuse(column: column)
            ?? CanonicalText.reasonToRefuse(column, what: "column name")
    }

    /// Why a record id (already known to be NFC, or about to be checked for it) is too long.
    private static func sizeReasonToRefuse(recordId: String) -> String? {
        let size = recordId.utf8.count
        guard size > ChangeLimits.recordIdSizeMax else { return nil }
        return "the record id is \(size) bytes, over \(ChangeLimits.recordIdSizeMax) "
            + "(ChangeLimits.recordIdSizeMax)"
    }

    /// Why a column name (already known to be NFC, or about to be checked for it) is too long.
    @inline(__always)
    private static func sizeReasonToRefuse(column: String) -> String? {
        let size = column.utf8.count
        guard size > ChangeLimits.columnNameSizeMax else { return nil }
        return columnNameTooLong(size)
    }

    @inline(never)
    private static func columnNameTooLong(_ size: Int) -> String {
        "the column name is \(size) bytes, over \(ChangeLimits.columnNameSizeMax) "
            + "(ChangeLimits.columnNameSizeMax)"
    }

    @inline(__always)
    static func reasonToRefuse(_ value: Value) -> String? {
        guard case .failure(let violation) = ValueCodec.encodedSize(of: value) else { return nil }
        return reason(violation)
    }

    /// Why a value breaking a bound is refused, in words.
    @inline(never)
    private static func reason(_ violation: ValueViolation) -> String {
        switch violation {
        case .tooDeep:
            return "the value nests deeper than \(ChangeLimits.valueDepthMax) levels "
                + "(ChangeLimits.valueDepthMax)"
        case .tooLarge(let size):
            return "the value encodes to at least \(size) bytes, over "
                + "\(ChangeLimits.valueSizeMax) (ChangeLimits.valueSizeMax)"
        case .nonFiniteDouble:
            return "the value holds a NaN or infinite number, which crdt-lite JSON cannot carry"
        case .unsignedInIntRange:
            return "the value holds Value.unsigned(n) with n below 2^63; such an integer is "
                + "Value.int(n) (Value(integer:) picks the spelling)"
        }
    }

    // MARK: Errors

    /// An error naming the change: its place in the call, record and column.
    static func refusal(
        _ reason: String, recordId: String, column: String?, index: Int? = nil,
        of count: Int = 1, code: LogbookError.Code = .invalidChange
    ) -> LogbookError {
        var which = index.map { "change \($0 + 1) of \(count)" } ?? "write"
        which += " (record \(quoted(recordId))"
        if let column { which += ", column \(quoted(column))" }
        which += ")"
        return LogbookError(
            code, "\(which) refused: \(reason); nothing was merged or logged",
            changeIndex: index)
    }

    /// A name for a message: quoted, and cut to 64 characters (ids may be huge or hostile).
    package static func quoted(_ name: String) -> String {
        let head = name.prefix(64)
        let cut = head.endIndex < name.endIndex ? head + "…" : String(head)
        return "\"" + cut.unicodeScalars.map { $0.escaped(asASCII: false) }.joined() + "\""
    }
}
