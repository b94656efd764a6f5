import Logbook
import LogbookCRDT

extension Logbook {
    /// Writes SODA rows as `bridge_event/<entityid>-<opendatetime>` records, 1,000 to a
    /// batch of the log: the same opening imported twice updates one record (its close and
    /// minutes as the later row has them). Counts the rows skipped, by reason: rows that do
    /// not parse, and openings whose record was deleted here (`.deletedRecord`). `progress`
    /// hears the rows done of the total.
    public func importBridgeRows(
        _ rows: [[String: String]], progress: ((Int, Int) -> Void)? = nil
    ) async throws(LogbookError) -> (imported: Int, skipped: [BridgeOpening.SkipReason: Int]) {
        var skipped: [BridgeOpening.SkipReason: Int] = [:]
        var records: [(recordId: String, fields: [(String, Value)])] = []
        for row in rows {
            switch BridgeOpening.parse(row) {
            case .failure(let reason):
                skipped[reason, default: 0] += 1
            case .success(let opening):
                let recordId =
                    BridgeStatsView.recordPrefix + "\(opening.entityId)-\(opening.openedAt)"
                records.append((recordId, opening.fields))
            }
        }
        let made = try await importRecords(records, batchSize: 1_000, progress: progress)
        if !made.deleted.isEmpty { skipped[.deletedRecord] = made.deleted.count }
        return (made.written, skipped)
    }
}
