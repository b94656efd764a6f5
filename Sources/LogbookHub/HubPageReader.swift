import Logbook
import LogbookCRDT
import Logging
import NIOCore
import PostgresNIO

/// Reads one page of a stream's changes: one call of `logbook_page` (migration 5), whose
/// queries share one snapshot, so the stream's version and the rows agree.
struct HubPageReader {
    let stream: HubStream
    let since: UInt64
    let limit: Int

    func read(on client: PostgresClient, logger: Logger) async throws -> HubPage {
        let rows = try await client.query(
            """
            SELECT * FROM logbook_page(\(stream.id), \(Self.storedVersion(since)), \(Int64(limit)))
            """, logger: logger)
        return try read(
            try await HubChangeArrays.onlyRow(rows, of: "logbook_page", columns: 14, stream: stream)
        )
    }

    private func read(_ row: PostgresRow) throws -> HubPage {
        let (version, horizon, last) = try row.decode((Int64, Int64, Int64?).self)
        let head = HubColumns.version(stored: version)
        let collectedBelow = HubColumns.version(stored: horizon)
        if since > 0, collectedBelow > 0, since < collectedBelow - 1 {
            throw HubError.snapshotRequired(since: since, collectedBelow: collectedBelow)
        }
        let cells = try HubChangeArrays.cells(row, from: 3, in: .version)
        let deletions = try HubChangeArrays.tombstones(row, from: 10, in: .version)
        // Rows of one version need no order among them: a page holds whole versions, and a
        // merge that deletes a record leaves no cell of it.
        let changes = HubChangeArrays.merged(cells, deletions, in: .version)
        let isComplete = last == nil
        // A complete page read every row up to the stream's version in this snapshot, so the
        // reader may move to that version even when its last merges wrote no row (a push of
        // echoes takes a version and changes nothing).
        let lastRead = changes.last?.localDbVersion ?? since
        let nextSince = isComplete ? max(head, since) : max(lastRead, since)
        return HubPage(
            changes: changes, nextSince: nextSince, hubVersion: head,
            isComplete: isComplete || nextSince >= head)
    }

    /// A reader's version as stored. No version exceeds `ChangeLimits.versionMax`, so a
    /// larger one (a hostile or confused `since`) reads as that bound: nothing is above it.
    /// Its bit pattern would be negative and read the whole stream.
    static func storedVersion(_ version: UInt64) -> Int64 {
        HubColumns.version(min(version, ChangeLimits.versionMax))
    }
}
