import LogbookCRDT
import Logging
import NIOCore
import PostgresNIO

/// The call that merges a reduced batch of pushes (`HubBatch`) into a stream, one statement
/// and so one transaction, committed as it returns: `logbook_merge` (migration 3,
/// `HubSchema`) for one push, `logbook_merge_pushes` (migration 4) for several, which also
/// counts what each push had accepted. Either takes the stream's next version under the
/// stream's row lock, then in order: new deletions become tombstone rows (a record already
/// deleted keeps its first tombstone); the cells of newly deleted records go; every column
/// change of a record without a tombstone is inserted, or replaces the stored value only
/// when its (colVersion, dbVersion, nodeId) is strictly greater — so an echo of what the hub
/// holds changes nothing; and when anything was accepted, it notifies
/// `HubChangeNotifier.channel`. The table keeps winners only.
struct HubMergeStatement {
    let stream: HubStream
    let pushCount: Int
    // Deletions, column by column.
    let deletedIds: [ByteBuffer]
    let deletionVersions: [Int64]
    let deletionNodes: [Int64]
    let deletionPushes: [Int32]
    let cells: HubCellColumns
    let cellPushes: [Int32]

    init(stream: HubStream, batch: HubBatch) {
        self.stream = stream
        pushCount = batch.pushCount
        deletedIds = batch.deletions.map { HubColumns.bytes($0.recordId) }
        deletionVersions = batch.deletions.map { HubColumns.version($0.dbVersion) }
        deletionNodes = batch.deletions.map { HubColumns.nodeId($0.nodeId) }
        deletionPushes = batch.deletions.map(\.push)
        cells = HubCellColumns(batch.cells.map(\.change))
        cellPushes = batch.cells.map(\.push)
    }

    /// Merges and commits; answers one report per push, in the batch's order (`received` is
    /// left to the caller). Throws `unknownStream` when the stream is gone.
    func run(on client: PostgresClient, logger: Logger) async throws -> [HubMergeReport] {
        guard pushCount > 1 else { return [try await runOne(on: client, logger: logger)] }
        let rows = try await client.query(
            """
            SELECT merge_version, push, accepted_deletions, dropped_cells, accepted_cells
            FROM logbook_merge_pushes(\(stream.id), \(deletedIds)::bytea[],
                \(deletionVersions)::int8[], \(deletionNodes)::int8[], \(deletionPushes)::int4[],
                \(cells.recordIds)::bytea[], \(cells.columns)::bytea[], \(cells.values)::bytea[],
                \(cells.hasValue)::bool[], \(cells.colVersions)::int8[], \(cells.dbVersions)::int8[],
                \(cells.nodeIds)::int8[], \(cellPushes)::int4[])
            """, logger: logger)
        // A row for push -1 carries the version alone; the others, each push that accepted
        // something. No row at all: the stream is gone.
        var reports: [HubMergeReport]?
        for try await (version, push, deleted, dropped, written) in rows.decode(
            (Int64, Int32, Int64, Int64, Int64).self)
        {
            let hubVersion = HubColumns.version(stored: version)
            if reports == nil {
                reports = Array(
                    repeating: HubMergeReport(received: 0, hubVersion: hubVersion),
                    count: pushCount)
            }
            guard push >= 0 else { continue }
            guard Int(push) < pushCount else {
                throw HubError.corruptRow("the merge counted push \(push) of \(pushCount)")
            }
            reports?[Int(push)].acceptedDeletions = Int(deleted)
            reports?[Int(push)].droppedCells = Int(dropped)
            reports?[Int(push)].acceptedCells = Int(written)
        }
        guard let reports else { throw HubError.unknownStream(stream.name) }
        return reports
    }

    private func runOne(on client: PostgresClient, logger: Logger) async throws -> HubMergeReport {
        let rows = try await client.query(
            """
            SELECT merge_version, accepted_deletions, dropped_cells, accepted_cells
            FROM logbook_merge(\(stream.id), \(deletedIds)::bytea[], \(deletionVersions)::int8[],
                \(deletionNodes)::int8[], \(cells.recordIds)::bytea[], \(cells.columns)::bytea[],
                \(cells.values)::bytea[], \(cells.hasValue)::bool[], \(cells.colVersions)::int8[],
                \(cells.dbVersions)::int8[], \(cells.nodeIds)::int8[])
            """, logger: logger)
        // One row; its version is null when the stream is gone.
        for try await (version, deleted, dropped, written) in rows.decode(
            (Int64?, Int64?, Int64?, Int64?).self)
        {
            guard let version else { break }
            var report = HubMergeReport(
                received: 0, hubVersion: HubColumns.version(stored: version))
            report.acceptedDeletions = Int(deleted ?? 0)
            report.droppedCells = Int(dropped ?? 0)
            report.acceptedCells = Int(written ?? 0)
            return report
        }
        throw HubError.unknownStream(stream.name)
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
