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
        let row = try await fetch(on: client, logger: logger)
        return try page(row, head: try head(of: row))
    }

    /// The page's one row, not yet decoded: a reader may ask for the next page (`head`
    /// says where it starts) while it decodes this one.
    func fetch(on client: PostgresClient, logger: Logger) async throws -> PostgresRow {
        let rows = try await client.query(
            """
            SELECT * FROM logbook_page(\(stream.id), \(Self.storedVersion(since)), \(Int64(limit)))
            """, logger: logger)
        return try await HubChangeArrays.onlyRow(
            rows, of: "logbook_page", columns: 14, stream: stream)
    }

    /// What a page's row says before its arrays are read.
    struct Head {
        /// The stream's version in the page's snapshot.
        var hubVersion: UInt64
        /// The page's last version when more rows follow it; nil when the page is the rest
        /// of the stream.
        var lastVersion: UInt64?
        /// The cells and the tombstones the page's arrays announce (`page` checks them).
        var cells: Int
        var tombstones: Int
    }

    /// `row`'s head; throws `.snapshotRequired` when the reader is below the GC horizon.
    func head(of row: PostgresRow) throws -> Head {
        let (version, horizon, last) = try row.decode((Int64, Int64, Int64?).self)
        let collectedBelow = HubColumns.version(stored: horizon)
        if since > 0, collectedBelow > 0, since < collectedBelow - 1 {
            throw HubError.snapshotRequired(since: since, collectedBelow: collectedBelow)
        }
        let columns = PostgresRandomAccessRow(row)
        guard let cells = PostgresBinaryArray.announcedCount(columns[3]),
            let tombstones = PostgresBinaryArray.announcedCount(columns[10])
        else {
            throw HubError.corruptRow("logbook_page's arrays have no binary header")
        }
        return Head(
            hubVersion: HubColumns.version(stored: version),
            lastVersion: last.map { HubColumns.version(stored: $0) }, cells: cells,
            tombstones: tombstones)
    }

    /// The page `row` holds; `head` is `head(of: row)`.
    func page(_ row: PostgresRow, head: Head) throws -> HubPage {
        let cells = try HubChangeArrays.cells(row, from: 3, in: .version)
        let deletions = try HubChangeArrays.tombstones(row, from: 10, in: .version)
        // Rows of one version need no order among them: a page holds whole versions, and a
        // merge that deletes a record leaves no cell of it.
        let changes = HubChangeArrays.merged(cells, deletions, in: .version)
        let isComplete = head.lastVersion == nil
        // A complete page read every row up to the stream's version in this snapshot, so the
        // reader may move to that version even when its last merges wrote no row (a push of
        // echoes takes a version and changes nothing).
        let lastRead = changes.last?.localDbVersion ?? since
        let nextSince = isComplete ? max(head.hubVersion, since) : max(lastRead, since)
        return HubPage(
            changes: changes, nextSince: nextSince, hubVersion: head.hubVersion,
            isComplete: isComplete || nextSince >= head.hubVersion)
    }

    /// A reader's version as stored. No version exceeds `ChangeLimits.versionMax`, so a
    /// larger one (a hostile or confused `since`) reads as that bound: nothing is above it.
    /// Its bit pattern would be negative and read the whole stream.
    static func storedVersion(_ version: UInt64) -> Int64 {
        HubColumns.version(min(version, ChangeLimits.versionMax))
    }
}
