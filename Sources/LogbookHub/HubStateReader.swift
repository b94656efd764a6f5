import Logbook
import LogbookCRDT
import Logging
import PostgresNIO

/// Reads one page of a stream's state — whole records after `after`, in id order — with one
/// call of `logbook_state_page` (migration 6), whose queries share one snapshot, so the
/// stream's version and the rows agree.
struct HubStateReader {
    let stream: HubStream
    let after: String?
    let changesMax: Int

    func read(on client: PostgresClient, logger: Logger) async throws -> StatePage {
        // Ids compare as bytes there, as UTF-8 orders code points: the order of the ids'
        // strings.
        let low = after.map(HubColumns.bytes)
        let rows = try await client.query(
            """
            SELECT * FROM logbook_state_page(\(stream.id), \(low)::bytea, \(Int64(changesMax)))
            """, logger: logger)
        return try read(
            try await HubChangeArrays.onlyRow(
                rows, of: "logbook_state_page", columns: 13, stream: stream))
    }

    private func read(_ row: PostgresRow) throws -> StatePage {
        let (version, last) = try row.decode((Int64, ByteBuffer?).self)
        if let after, let last,
            !after.utf8.lexicographicallyPrecedes(last.readableBytesView)
        {
            throw HubError.corruptRow("a state page after a record ended at or before it")
        }
        let cells = try HubChangeArrays.cells(row, from: 2, in: .recordId)
        let deletions = try HubChangeArrays.tombstones(row, from: 9, in: .recordId)
        return StatePage(
            // A record has cells or a tombstone, never both: a deletion drops its record's cells.
            changes: HubChangeArrays.merged(cells, deletions, in: .recordId),
            nextAfter: last.map { String(buffer: $0) },
            covered: HubOffsets.after(version: HubColumns.version(stored: version)))
    }
}
