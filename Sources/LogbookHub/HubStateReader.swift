import Logbook
import LogbookCRDT
import Logging
import NIOCore
import PostgresNIO

/// Reads one page of a stream's state — whole records after `after`, in id order — in a
/// read-only, repeatable-read transaction, so the stream's version and the rows come from
/// one snapshot.
struct HubStateReader {
    let stream: HubStream
    let after: String?
    let changesMax: Int

    func read(on connection: PostgresConnection, logger: Logger) async throws -> StatePage {
        try await connection.query(
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
        let heads = try await connection.query(
            "SELECT hub_version FROM logbook_streams WHERE stream_id = \(stream.id)",
            logger: logger)
        var version: UInt64?
        for try await stored in heads.decode(Int64.self) {
            version = HubColumns.version(stored: stored)
        }
        guard let version else { throw HubError.unknownStream(stream.name) }
        // Ids compare as bytes here, as UTF-8 orders code points: the order of the ids'
        // strings.
        let low = after.map(HubColumns.bytes)
        let high = try await boundary(above: low, on: connection, logger: logger)
        var changes: [Change<String, String, Value>] = []
        let rows = try await connection.query(
            """
            SELECT record_id, col_name, value, col_version, db_version, node_id, hub_version
            FROM (
                SELECT record_id, col_name, value, col_version, db_version, node_id, hub_version
                FROM logbook_cells
                WHERE stream_id = \(stream.id) AND (\(low)::bytea IS NULL OR record_id > \(low))
                    AND (\(high)::bytea IS NULL OR record_id <= \(high))
                UNION ALL
                SELECT record_id, NULL, NULL, 0, db_version, node_id, hub_version
                FROM logbook_tombstones
                WHERE stream_id = \(stream.id) AND (\(low)::bytea IS NULL OR record_id > \(low))
                    AND (\(high)::bytea IS NULL OR record_id <= \(high))
            ) AS state
            ORDER BY record_id, col_name NULLS FIRST
            """, logger: logger)
        for try await row in rows { changes.append(try HubChangeRow.change(row)) }
        return StatePage(
            changes: changes, nextAfter: high.map { String(buffer: $0) },
            covered: HubOffsets.after(version: version))
    }

    /// The id of the `changesMax`-th row after `low` in the table that reaches it first:
    /// the page ends with that record. Nil when neither table holds that many: the page is
    /// the rest of the state.
    private func boundary(above low: ByteBuffer?, on connection: PostgresConnection, logger: Logger)
        async throws -> ByteBuffer?
    {
        let offset = Int64(changesMax) - 1  // changesMax ≥ 1
        let result = try await connection.query(
            """
            SELECT least(
                (SELECT record_id FROM logbook_cells
                 WHERE stream_id = \(stream.id) AND (\(low)::bytea IS NULL OR record_id > \(low))
                 ORDER BY record_id, col_name OFFSET \(offset) LIMIT 1),
                (SELECT record_id FROM logbook_tombstones
                 WHERE stream_id = \(stream.id) AND (\(low)::bytea IS NULL OR record_id > \(low))
                 ORDER BY record_id OFFSET \(offset) LIMIT 1))
            """, logger: logger)
        for try await id in result.decode(ByteBuffer?.self) { return id }
        return nil
    }
}
