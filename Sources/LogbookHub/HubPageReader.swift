import Logbook
import LogbookCRDT
import Logging
import NIOCore
import PostgresNIO

/// Reads one page of a stream's changes in a read-only, repeatable-read transaction, so the
/// stream's version and the rows come from one snapshot.
struct HubPageReader {
    let stream: HubStream
    let since: UInt64
    let limit: Int

    func read(on connection: PostgresConnection, logger: Logger) async throws -> HubPage {
        try await connection.query(
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
        let heads = try await connection.query(
            "SELECT hub_version, collected_below FROM logbook_streams WHERE stream_id = \(stream.id)",
            logger: logger)
        var head: (version: UInt64, collectedBelow: UInt64)?
        for try await (version, collected) in heads.decode((Int64, Int64).self) {
            head = (HubColumns.version(stored: version), HubColumns.version(stored: collected))
        }
        guard let head else { throw HubError.unknownStream(stream.name) }
        if since > 0, since < head.collectedBelow {
            throw HubError.snapshotRequired(since: since, collectedBelow: head.collectedBelow)
        }
        var changes = try await rows(on: connection, after: since, upTo: nil, logger: logger)
        var isComplete = true
        if changes.count > limit, let lastVersion = changes.last?.localDbVersion {
            isComplete = false
            // The last version may be cut: drop it, unless it is the only one, in which case
            // read all of it (one merge is at most `HubStore.pushChangesMax` changes).
            let whole = changes.prefix { $0.localDbVersion < lastVersion }
            if whole.isEmpty {
                changes = try await rows(
                    on: connection, after: since, upTo: lastVersion, logger: logger)
            } else {
                changes = Array(whole)
            }
        }
        // A complete page read every row up to the stream's version in this snapshot, so the
        // reader may move to that version even when its last merges wrote no row (a push of
        // echoes takes a version and changes nothing).
        let lastRead = changes.last?.localDbVersion ?? since
        let nextSince = isComplete ? max(head.version, since) : max(lastRead, since)
        return HubPage(
            changes: changes, nextSince: nextSince, hubVersion: head.version,
            isComplete: isComplete || nextSince >= head.version)
    }

    /// Rows after `after`: `limit + 1` of them in version order, or with `upTo`, every row
    /// up to that version.
    private func rows(
        on connection: PostgresConnection, after: UInt64, upTo: UInt64?, logger: Logger
    ) async throws -> [Change<String, String, Value>] {
        let low = HubColumns.version(after)
        let high = upTo.map(HubColumns.version) ?? Int64.max
        let count = upTo == nil ? Int64(limit) + 1 : Int64.max
        let result = try await connection.query(
            """
            SELECT record_id, col_name, value, col_version, db_version, node_id, hub_version
            FROM (
                SELECT record_id, col_name, value, col_version, db_version, node_id, hub_version
                FROM logbook_cells
                WHERE stream_id = \(stream.id) AND hub_version > \(low) AND hub_version <= \(high)
                UNION ALL
                SELECT record_id, NULL, NULL, 0, db_version, node_id, hub_version
                FROM logbook_tombstones
                WHERE stream_id = \(stream.id) AND hub_version > \(low) AND hub_version <= \(high)
            ) AS changed
            ORDER BY hub_version, record_id, col_name NULLS LAST
            LIMIT \(count)
            """, logger: logger)
        var changes: [Change<String, String, Value>] = []
        for try await row in result.decode(
            (ByteBuffer, ByteBuffer?, ByteBuffer?, Int64, Int64, Int64, Int64).self)
        {
            changes.append(try Self.change(row))
        }
        return changes
    }

    static func change(
        _ row: (ByteBuffer, ByteBuffer?, ByteBuffer?, Int64, Int64, Int64, Int64)
    ) throws -> Change<String, String, Value> {
        let (record, column, value, colVersion, dbVersion, node, version) = row
        let recordId = String(buffer: record)
        guard let column else {
            return Change(
                recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
                dbVersion: HubColumns.version(stored: dbVersion),
                nodeId: HubColumns.nodeId(stored: node),
                localDbVersion: HubColumns.version(stored: version), flags: 0)
        }
        var decoded: Value?
        if let value {
            decoded =
                value.readableBytesView.withContiguousStorageIfAvailable { bytes in
                    var position = 0
                    let read = ValueCodec.read(
                        UnsafeRawBufferPointer(bytes), at: &position, depth: 0)
                    return position == bytes.count ? read : nil
                } ?? nil
            guard decoded != nil else {
                throw HubError.corruptRow(
                    "the value of record \(HubError.quoted(recordId)) does not decode")
            }
        }
        return Change(
            recordId: recordId, colName: String(buffer: column), value: decoded,
            colVersion: HubColumns.version(stored: colVersion),
            dbVersion: HubColumns.version(stored: dbVersion),
            nodeId: HubColumns.nodeId(stored: node),
            localDbVersion: HubColumns.version(stored: version), flags: 0)
    }
}
