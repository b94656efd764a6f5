import LogbookCRDT

extension Logbook {
    /// Writes what `derive` makes of the records `recordIds` as they are now, in one batch
    /// of the log kept whole or not at all: `derive` runs under the engine's lock with each
    /// live record (nil when there is none), so nothing can change between the read and the
    /// write. A transaction without retries, for writes computed from the stored records
    /// alone (the data layer's saves); `derive` must not call the Logbook.
    ///
    /// Refused whole, with nothing written: a record that is deleted or fenced
    /// (`.recordDeleted`, its position in `changeIndex`), a write that is not admitted
    /// (`.invalidChange`), writes past the clock's or a column's version limit
    /// (`.limitExceeded`), or more than a batch holds.
    package nonisolated(nonsending) func writeDerived(
        from recordIds: [String],
        _ derive: (_ position: Int, _ stored: Record<String, Value>?) -> [LocalWrite]
    ) async throws(LogbookError) -> [Change<String, String, Value>] {
        let canonical = recordIds.map { CanonicalText.isNFC($0) ? $0 : CanonicalText.nfc($0) }
        let made = try await logged(together: true) { crdt throws(LogbookError) in
            var writes: [LocalWrite] = []
            for (position, recordId) in canonical.enumerated() {
                if isFenced(held: recordId) || crdt.isTombstoned(recordId) {
                    var refused = ChangeAdmission.deletedRecordRefusal(recordId: recordId)
                    refused.changeIndex = position
                    throw refused
                }
                for write in derive(position, crdt.getRecord(recordId)) {
                    writes.append(try ChangeAdmission.admit(write))
                }
            }
            guard !writes.isEmpty else { return ([], nil) }
            // Every record written was found live above, under this same lock.
            return (try writeChecked(writes, into: crdt), nil)
        }
        return made.batch
    }
}
