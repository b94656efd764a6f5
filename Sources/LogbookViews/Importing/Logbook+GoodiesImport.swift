import Logbook

extension Logbook {
    /// Writes a Goodies document's records in order (entities, then relationships), 1,000
    /// to a batch of the log; returns the records written and the ids of those not written
    /// because they were deleted here (crdt-lite never revives a deleted record; re-import
    /// it under a new id). `progress` hears the records done of the total.
    @discardableResult
    public func importGoodies(
        _ document: GoodiesDocument, progress: ((Int, Int) -> Void)? = nil
    ) async throws(LogbookError) -> (written: Int, deleted: [String]) {
        try await importRecords(
            document.writes.map { ($0.recordId, $0.fields) }, batchSize: 1_000,
            progress: progress)
    }
}
