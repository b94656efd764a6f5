import Logbook
import LogbookCRDT

extension Logbook {
    /// Writes SODA rows as `bridge_event/<entityid>-<opendatetime>` records (the same row
    /// imported twice updates one record) and counts the rows skipped, by reason; `progress`
    /// hears the rows done of the total after each row.
    public func importBridgeRows(
        _ rows: [[String: String]], progress: ((Int, Int) -> Void)? = nil
    ) async throws(LogbookError) -> (imported: Int, skipped: [BridgeOpening.SkipReason: Int]) {
        var imported = 0
        var skipped: [BridgeOpening.SkipReason: Int] = [:]
        for (index, row) in rows.enumerated() {
            defer { progress?(index + 1, rows.count) }
            switch BridgeOpening.parse(row) {
            case .failure(let reason):
                skipped[reason, default: 0] += 1
            case .success(let opening):
                let recordId =
                    BridgeStatsView.recordPrefix + "\(opening.entityId)-\(opening.openedAt)"
                try await insertOrUpdate(recordId, fields: opening.fields)
                imported += 1
            }
        }
        return (imported, skipped)
    }
}
