import Logbook

extension Logbook {
    /// Writes a Goodies document's records in order (entities, then relationships); returns
    /// the number of records written. `progress` is called after each record.
    @discardableResult
    public func importGoodies(
        _ document: GoodiesDocument, progress: ((Int, Int) -> Void)? = nil
    ) async throws(LogbookError) -> Int {
        let writes = document.writes
        for (index, write) in writes.enumerated() {
            try await insertOrUpdate(write.recordId, fields: write.fields)
            progress?(index + 1, writes.count)
        }
        return writes.count
    }
}
