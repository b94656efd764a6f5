import LogbookCRDT

/// The reads and writes of one `Logbook.transaction(_:)` body. Reads see the replica as it
/// is with this transaction's own writes over it; writes are collected, checked as they are
/// made, and made at commit all at once, as one batch of the log.
///
/// A write the CRDT would refuse throws here, in the body, with its reason: setting fields
/// of a record that is deleted (before the transaction or in it) is `.recordDeleted`, a bad
/// id, column or value `.invalidChange`, as the single calls check them.
public struct Transaction {
    let logbook: Logbook
    /// What each record read looked like when first read; checked again at commit.
    var seen: [String: RecordFingerprint] = [:]
    /// The records as read, so a second read costs no lock.
    var stored: [String: Record<String, Value>] = [:]
    /// This transaction's own writes, by record.
    var pending: [String: PendingRecord] = [:]
    /// The writes in the order they were made, admitted (ids and columns in NFC).
    var writes: [LocalWrite] = []

    init(logbook: Logbook) { self.logbook = logbook }

    /// The record's visible fields as this transaction sees them: nil when it does not
    /// exist or is deleted. Reading a record makes the commit depend on it: when another
    /// write or a merge changes it before the commit, the body runs again.
    public mutating func fields(_ recordId: String) -> [String: Value]? {
        let recordId = Self.canonical(recordId)
        let stored = read(recordId)?.fields
        guard let pending = pending[recordId] else { return stored }
        return pending.fields(over: stored)
    }

    /// True when the record is deleted, before this transaction or by it.
    public mutating func isDeleted(_ recordId: String) -> Bool {
        let recordId = Self.canonical(recordId)
        if pending[recordId]?.isDeleted == true { return true }
        _ = read(recordId)
        return seen[recordId] == .deleted
    }

    /// Sets fields of a record, creating it if needed (`Logbook.insertOrUpdate`). Throws
    /// `.recordDeleted` for a deleted record and `.invalidChange` for a bad id, column or
    /// value; a refused write is not part of the transaction.
    public mutating func insertOrUpdate(_ recordId: String, fields: [(String, Value)])
        throws(LogbookError)
    {
        let write = try ChangeAdmission.admit(.insertOrUpdate(recordId, fields: fields))
        guard case .insertOrUpdate(let recordId, let fields) = write else { return }
        if isDeleted(recordId) { throw ChangeAdmission.deletedRecordRefusal(recordId: recordId) }
        for (column, value) in fields {
            pending[recordId, default: PendingRecord()].columns[column] = .some(value)
        }
        writes.append(write)
    }

    /// Deletes one field (`Logbook.deleteField`); nothing when the record is deleted.
    public mutating func deleteField(_ recordId: String, fieldName: String)
        throws(LogbookError)
    {
        let write = try ChangeAdmission.admit(.deleteField(recordId, fieldName: fieldName))
        guard case .deleteField(let recordId, let fieldName) = write else { return }
        if isDeleted(recordId) { return }
        pending[recordId, default: PendingRecord()].columns[fieldName] = .some(nil)
        writes.append(write)
    }

    /// Deletes the record (`Logbook.deleteRecord`), for good: no write can set its fields
    /// again, in this transaction or after it.
    public mutating func deleteRecord(_ recordId: String) throws(LogbookError) {
        let write = try ChangeAdmission.admit(.deleteRecord(recordId))
        if isDeleted(write.recordId) { return }
        pending[write.recordId] = PendingRecord(isDeleted: true)
        writes.append(write)
    }

    /// The stored record, read once under the engine's lock and remembered with its
    /// fingerprint.
    private mutating func read(_ recordId: String) -> Record<String, Value>? {
        if let fingerprint = seen[recordId] {
            return fingerprint == .deleted ? nil : stored[recordId]
        }
        let logbook = self.logbook
        let (fingerprint, record) = logbook.locked {
            RecordFingerprint.of(
                recordId, in: logbook.crdt, isFenced: logbook.isFenced(held: recordId))
        }
        seen[recordId] = fingerprint
        stored[recordId] = record
        return record
    }

    /// Ids are kept as the writes admit them, in NFC, so that a read and a write of the
    /// same text in another normalization meet.
    private static func canonical(_ recordId: String) -> String {
        CanonicalText.isNFC(recordId) ? recordId : CanonicalText.nfc(recordId)
    }
}
