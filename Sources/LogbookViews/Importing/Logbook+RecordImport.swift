import Logbook
import LogbookCRDT

extension Logbook {
    /// Writes `records` (record id, columns) in order, `batchSize` records to a call of
    /// `write(_:)`: one append and one wait for durability per batch instead of per record.
    /// A record deleted on this replica is not written (crdt-lite never revives one) and is
    /// returned, so the importer can count it; the rest of its batch is written.
    /// `progress` hears the records done of the total after each batch.
    func importRecords(
        _ records: [(recordId: String, fields: [(String, Value)])], batchSize: Int,
        progress: ((Int, Int) -> Void)?
    ) async throws(LogbookError) -> (written: Int, deleted: [String]) {
        var deleted: [String] = []
        var start = 0
        while start < records.count {
            let end = min(records.count, start + max(1, batchSize))
            var pending = records[start..<end]
            while !pending.isEmpty {
                do {
                    _ = try await write(
                        pending.map { .insertOrUpdate($0.recordId, fields: $0.fields) })
                    break
                } catch {
                    // The writes before the refused one are made; go on after it.
                    guard error.code == .recordDeleted, let index = error.changeIndex,
                        index < pending.count
                    else { throw error }
                    let refused = pending.index(pending.startIndex, offsetBy: index)
                    deleted.append(pending[refused].recordId)
                    pending = pending[(refused + 1)...]
                }
            }
            start = end
            progress?(end, records.count)
        }
        return (records.count - deleted.count, deleted)
    }
}
