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
        var page: HubPage?
        for try await row in rows {
            guard page == nil else { throw HubError.corruptRow("a page came as several rows") }
            page = try read(row)
        }
        guard let page else { throw HubError.unknownStream(stream.name) }
        return page
    }

    private func read(_ row: PostgresRow) throws -> HubPage {
        // postgres-nio traps when a row has fewer columns than a tuple decodes.
        let columns = PostgresRandomAccessRow(row).count
        guard columns == 14 else {
            throw HubError.corruptRow("logbook_page answered \(columns) columns, not 14")
        }
        let (version, horizon, last) = try row.decode((Int64, Int64, Int64?).self)
        let head = HubColumns.version(stored: version)
        let collectedBelow = HubColumns.version(stored: horizon)
        if since > 0, collectedBelow > 0, since < collectedBelow - 1 {
            throw HubError.snapshotRequired(since: since, collectedBelow: collectedBelow)
        }
        let cells = try HubChangeArrays.cells(row, from: 3)
        let deletions = try HubChangeArrays.tombstones(row, from: 10)
        // Rows of one version need no order among them: a page holds whole versions, and a
        // merge that deletes a record leaves no cell of it.
        let changes = deletions.isEmpty ? cells : Self.merged(cells, deletions)
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
