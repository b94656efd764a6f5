import LogbookCRDT
import Logging
import NIOCore
import PostgresNIO

/// The one statement that merges a reduced push (`HubBatch`) into a stream, given the
/// version the merge took. In order: new deletions become tombstone rows (a record already
/// deleted keeps its first tombstone); the cells of newly deleted records go; then every
/// column change of a record without a tombstone is inserted, or replaces the stored value
/// only when its (colVersion, dbVersion, nodeId) is strictly greater — so an echo of what
/// the hub holds changes nothing. The table keeps winners only.
struct HubMergeStatement {
    let stream: HubStream
    // Deletions, column by column.
    let deletedIds: [ByteBuffer]
    let deletionVersions: [Int64]
    let deletionNodes: [Int64]
    let cells: HubCellColumns

    init(stream: HubStream, batch: HubBatch) {
        self.stream = stream
        deletedIds = batch.deletions.map { HubColumns.bytes($0.recordId) }
        deletionVersions = batch.deletions.map { HubColumns.version($0.dbVersion) }
        deletionNodes = batch.deletions.map { HubColumns.nodeId($0.nodeId) }
        cells = HubCellColumns(batch.cells)
    }

    func run(on connection: PostgresConnection, version: Int64, logger: Logger) async throws
        -> HubMergeReport
    {
        let rows = try await connection.query(
            """
            WITH deletion AS (
                SELECT * FROM unnest(\(deletedIds)::bytea[], \(deletionVersions)::int8[],
                    \(deletionNodes)::int8[]) AS d(record_id, db_version, node_id)
            ),
            tombstoned AS (
                INSERT INTO logbook_tombstones (stream_id, record_id, db_version, node_id, hub_version)
                SELECT \(stream.id), record_id, db_version, node_id, \(version) FROM deletion
                ON CONFLICT (stream_id, record_id) DO NOTHING
                RETURNING record_id
            ),
            dropped AS (
                DELETE FROM logbook_cells AS cell USING tombstoned
                WHERE cell.stream_id = \(stream.id) AND cell.record_id = tombstoned.record_id
                RETURNING 1
            ),
            incoming AS (
                SELECT * FROM unnest(\(cells.recordIds)::bytea[], \(cells.columns)::bytea[],
                    \(cells.values)::bytea[], \(cells.hasValue)::bool[], \(cells.colVersions)::int8[],
                    \(cells.dbVersions)::int8[], \(cells.nodeIds)::int8[])
                    AS c(record_id, col_name, value, has_value, col_version, db_version, node_id)
            ),
            written AS (
                INSERT INTO logbook_cells AS held (stream_id, record_id, col_name, value,
                    col_version, db_version, node_id, hub_version)
                SELECT \(stream.id), record_id, col_name, CASE WHEN has_value THEN value END,
                    col_version, db_version, node_id, \(version)
                FROM incoming
                WHERE NOT EXISTS (
                    SELECT 1 FROM logbook_tombstones AS t
                    WHERE t.stream_id = \(stream.id) AND t.record_id = incoming.record_id)
                ON CONFLICT (stream_id, record_id, col_name) DO UPDATE
                SET value = excluded.value, col_version = excluded.col_version,
                    db_version = excluded.db_version, node_id = excluded.node_id,
                    hub_version = excluded.hub_version
                WHERE (excluded.col_version, excluded.db_version, excluded.node_id)
                    > (held.col_version, held.db_version, held.node_id)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM tombstoned), (SELECT count(*) FROM dropped),
                (SELECT count(*) FROM written)
            """, logger: logger)
        var report = HubMergeReport(received: 0, hubVersion: HubColumns.version(stored: version))
        for try await (deleted, dropped, written) in rows.decode((Int64, Int64, Int64).self) {
            report.acceptedDeletions = Int(deleted)
            report.droppedCells = Int(dropped)
            report.acceptedCells = Int(written)
        }
        return report
    }
}

/// Column changes as the arrays one `unnest` takes: ids, column names and values in the
/// log's encoding, versions as stored (`HubColumns`). `hasValue` false is a deleted field.
package struct HubCellColumns: Sendable {
    package let recordIds: [ByteBuffer]
    package let columns: [ByteBuffer]
    package let values: [ByteBuffer]
    package let hasValue: [Bool]
    package let colVersions: [Int64]
    package let dbVersions: [Int64]
    package let nodeIds: [Int64]

    package init(_ changes: [Change<String, String, Value>]) {
        recordIds = changes.map { HubColumns.bytes($0.recordId) }
        columns = changes.map { HubColumns.bytes($0.colName ?? "") }
        values = changes.map { $0.value.map(HubColumns.bytes) ?? ByteBuffer() }
        hasValue = changes.map { $0.value != nil }
        colVersions = changes.map { HubColumns.version($0.colVersion) }
        dbVersions = changes.map { HubColumns.version($0.dbVersion) }
        nodeIds = changes.map { HubColumns.nodeId($0.nodeId) }
    }
}
