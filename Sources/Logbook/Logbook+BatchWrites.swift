import LogbookCRDT

extension Logbook {
    /// Makes `writes` in order, each exactly as its own call (`insertOrUpdate`,
    /// `deleteField`, `deleteRecord`) would, under one lock, in one append to the log and one
    /// wait for the durability mode; returns their changes in order.
    ///
    /// For importers and for many small writes at once: the calls' fixed costs are paid once,
    /// and the records of the writes a few places ahead are loaded into the cache while one
    /// is made (docs/benchmarks.md: "append .buffered, 10k writes/call").
    ///
    /// Every write is checked first (ids, column names, values, as the single calls check
    /// them); a bad one throws `.invalidChange` with its index in `changeIndex`, and nothing
    /// is written. So does `.limitExceeded` when the writes would take the clock past
    /// `ChangeLimits.versionMax`. A write to a column whose version is at that limit throws
    /// `.limitExceeded` naming it (`changeIndex`); the writes before it are made and logged.
    /// So does an `insertOrUpdate` of a deleted record (deleted before the call or earlier in
    /// it, or fenced by tombstone GC), with `.recordDeleted`: crdt-lite never revives a
    /// deleted record, and its own call would drop the write without a word. A
    /// `deleteField` or `deleteRecord` of one changes nothing and is not refused: the record
    /// already is what it asks for. Use `transaction(_:)` for all or nothing.
    /// `skippingDeletedRecords` makes such a write as crdt-lite's call does instead (no
    /// change, a tick of the clock), for replaying a workload written against crdt-lite.
    ///
    /// Durability: as the single calls. Not atomic across a crash: the log may keep a prefix
    /// of the writes' changes, in order, as it would of the same writes made one by one.
    @discardableResult
    public nonisolated(nonsending) func write(
        _ writes: [LocalWrite], skippingDeletedRecords: Bool = false
    ) async throws(LogbookError) -> [Change<String, String, Value>] {
        var admitted: [LocalWrite] = []
        admitted.reserveCapacity(writes.count)
        for (index, write) in writes.enumerated() {
            do throws(LogbookError) {
                admitted.append(try ChangeAdmission.admit(write))
            } catch {
                var located = error
                located.changeIndex = index
                throw located
            }
        }
        var refusal: LogbookError?
        let made = try await logged { crdt throws(LogbookError) in
            try ChangeAdmission.checkClockRoom(
                clock: crdt.getClock().currentTime(), writes: admitted.count)
            let outcome = crdt.write(
                admitted, refusingColumnVersionsFrom: ChangeLimits.versionMax,
                refusingDeletedRecords: !skippingDeletedRecords, skipping: fenceTest())
            if let (index, reason) = outcome.refusal {
                var refused = ChangeAdmission.refusal(reason, recordId: admitted[index].recordId)
                refused.changeIndex = index
                refusal = refused
            }
            return (outcome.changes, nil)
        }
        if let refusal { throw refusal }
        return made.batch
    }
}
