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
        // The page's queries walk the version index from `since`. Right after a burst of
        // merges the planner's statistics lag (until autovacuum analyzes the table) and it
        // picks a bitmap scan of the whole rest of the stream and a sort instead: 37 ms for
        // a page's boundary on a 200,000-change stream, 2 ms by the index. Only this
        // transaction's plans change.
        try await connection.query(
            """
            SELECT set_config('enable_bitmapscan', 'off', true),
                set_config('enable_seqscan', 'off', true)
            """, logger: logger)
        let heads = try await connection.query(
            "SELECT hub_version, collected_below FROM logbook_streams WHERE stream_id = \(stream.id)",
            logger: logger)
        var head: (version: UInt64, collectedBelow: UInt64)?
        for try await (version, collected) in heads.decode((Int64, Int64).self) {
            head = (HubColumns.version(stored: version), HubColumns.version(stored: collected))
        }
        guard let head else { throw HubError.unknownStream(stream.name) }
        // Tombstones below `collected_below` are gone: a reader that has not seen every
        // version below it (and is not starting afresh) would miss a deletion.
        if since > 0, head.collectedBelow > 0, since < head.collectedBelow - 1 {
            throw HubError.snapshotRequired(since: since, collectedBelow: head.collectedBelow)
        }
        // The page's last version first, found by walking `limit` index entries of each
        // table: the rows query then reads only the page, never the rest of the stream.
        let high = try await boundary(on: connection, logger: logger)
        let changes = try await rows(on: connection, after: since, upTo: high, logger: logger)
        let isComplete = high == nil
        // A complete page read every row up to the stream's version in this snapshot, so the
        // reader may move to that version even when its last merges wrote no row (a push of
        // echoes takes a version and changes nothing).
        let lastRead = changes.last?.localDbVersion ?? since
        let nextSince = isComplete ? max(head.version, since) : max(lastRead, since)
        return HubPage(
            changes: changes, nextSince: nextSince, hubVersion: head.version,
            isComplete: isComplete || nextSince >= head.version)
    }

    /// The version of the `limit`-th row past `since` in the table that reaches it first:
    /// every row up to it makes the page (about `limit` rows, and whole versions). Nil when
    /// neither table holds that many: the page is the rest of the stream.
    private func boundary(on connection: PostgresConnection, logger: Logger) async throws
        -> UInt64?
    {
        let low = Self.storedVersion(since)
        let offset = Int64(limit) - 1  // limit ≥ 1
        let result = try await connection.query(
            """
            SELECT least(
                (SELECT hub_version FROM logbook_cells
                 WHERE stream_id = \(stream.id) AND hub_version > \(low)
                 ORDER BY hub_version OFFSET \(offset) LIMIT 1),
                (SELECT hub_version FROM logbook_tombstones
                 WHERE stream_id = \(stream.id) AND hub_version > \(low)
                 ORDER BY hub_version OFFSET \(offset) LIMIT 1))
            """, logger: logger)
        for try await version in result.decode(Int64?.self) {
            return version.map(HubColumns.version(stored:))
        }
        return nil
    }

    /// Every row with a version in (`after`, `upTo`], in version order: each table read in
    /// the order of its version index (no sort in the database), the two merged here. Rows
    /// of one version need no order among them: a page holds whole versions, and a merge
    /// that deletes a record leaves no cell of it.
    private func rows(
        on connection: PostgresConnection, after: UInt64, upTo: UInt64?, logger: Logger
    ) async throws -> [Change<String, String, Value>] {
        let low = Self.storedVersion(after)
        let high = upTo.map(HubColumns.version) ?? Int64.max
        let cells = try await connection.query(
            """
            SELECT record_id, col_name, value, col_version, db_version, node_id, hub_version
            FROM logbook_cells
            WHERE stream_id = \(stream.id) AND hub_version > \(low) AND hub_version <= \(high)
            ORDER BY hub_version
            """, logger: logger)
        var changes: [Change<String, String, Value>] = []
        changes.reserveCapacity(limit)
        for try await row in cells { changes.append(try HubChangeRow.change(row)) }
        let tombstones = try await connection.query(
            """
            SELECT record_id, NULL::bytea, NULL::bytea, 0::int8, db_version, node_id, hub_version
            FROM logbook_tombstones
            WHERE stream_id = \(stream.id) AND hub_version > \(low) AND hub_version <= \(high)
            ORDER BY hub_version
            """, logger: logger)
        var deletions: [Change<String, String, Value>] = []
        for try await row in tombstones { deletions.append(try HubChangeRow.change(row)) }
        guard !deletions.isEmpty else { return changes }
        return Self.merged(changes, deletions)
    }

    /// Two lists in version order as one, a version's cells before its deletions.
    static func merged(
        _ cells: [Change<String, String, Value>], _ deletions: [Change<String, String, Value>]
    ) -> [Change<String, String, Value>] {
        var merged: [Change<String, String, Value>] = []
        merged.reserveCapacity(cells.count + deletions.count)
        var next = deletions.makeIterator()
        var deletion = next.next()
        for cell in cells {
            while let pending = deletion, pending.localDbVersion < cell.localDbVersion {
                merged.append(pending)
                deletion = next.next()
            }
            merged.append(cell)
        }
        while let pending = deletion {
            merged.append(pending)
            deletion = next.next()
        }
        return merged
    }

    /// A reader's version as stored. No version exceeds `ChangeLimits.versionMax`, so a
    /// larger one (a hostile or confused `since`) reads as that bound: nothing is above it.
    /// Its bit pattern would be negative and read the whole stream.
    static func storedVersion(_ version: UInt64) -> Int64 {
        HubColumns.version(min(version, ChangeLimits.versionMax))
    }
}
