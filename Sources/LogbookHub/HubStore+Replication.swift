import Logbook
import LogbookCRDT
import LogbookStorage
import PostgresNIO

/// What a node's replication session asks of a stream: its changes as shipped batches at
/// offsets (`HubOffsets`), its state page by page, a place to keep acknowledgements, and
/// pushes of shipped batches.
extension HubStore {
    /// The most records and uncompressed bytes a pushed body may announce (two records
    /// per change: a node's log puts a clock record after each write's changes).
    static let pushRecordsMax = 2 * pushChangesMax
    static let pushRawBytesMax = 32 << 20

    /// The stream's changes after the reader at `offset`, as shipped batches: whole
    /// versions, about `maxBytes` of them (at least one version), with the epoch holding
    /// the last version the answer covers. Throws `.diverged` when `offset` names a version
    /// the stream has not reached, `.epochChanged` when the reader states the epoch it saw
    /// that version in (`epoch`) and another holds it now, `.snapshotRequired` below the
    /// stream's GC horizon.
    public func batches(
        in stream: HubStream, from offset: UInt64, epoch: UInt64? = nil, maxBytes: Int
    ) async throws -> FetchedBatches {
        try await batches(
            in: stream, from: offset, epoch: epoch, maxBytes: maxBytes,
            pageRows: Self.pipelinedPageRows)
    }

    /// `batches(in:from:epoch:maxBytes:)` reading at most `pageRows` rows of each table per
    /// query (the answer does not depend on it; at least 1).
    func batches(
        in stream: HubStream, from offset: UInt64, epoch: UInt64? = nil, maxBytes: Int,
        pageRows: Int
    ) async throws -> FetchedBatches {
        var answer = try await pages(
            in: stream, from: offset, maxBytes: maxBytes, pageRows: pageRows)
        // After the pages: the epoch of every version they hold has committed with it. A
        // restore between the two reads costs the reader a resync at its next request.
        let since = HubOffsets.since(offset)
        let reading = try await epochs(of: stream, at: since, HubOffsets.since(answer.nextOffset))
        if let reason = reading.reasonNotHeld(inEpoch: epoch) {
            throw HubError.epochChanged(since: since, reason: reason)
        }
        answer.epoch = reading.epochs.second
        return answer
    }

    /// The pages of `batches(in:from:epoch:maxBytes:pageRows:)`, without the epochs.
    private func pages(in stream: HubStream, from offset: UInt64, maxBytes: Int, pageRows: Int)
        async throws -> FetchedBatches
    {
        let since = HubOffsets.since(offset)
        // Shipped changes take 10–40 bytes each; pages of whole versions about that large.
        // As in one query of `logbook_page`, the bound counts each table's rows: the answer
        // ends with the version holding the bound's row of the table that reaches it first.
        let rowsMax = max(1, min(maxBytes / 16, 200_000))
        let pageRows = max(1, pageRows)
        var left = (cells: rowsMax, tombstones: rowsMax)
        var reader = HubPageReader(stream: stream, since: since, limit: min(rowsMax, pageRows))
        var row = try await reader.fetch(on: client, logger: logger)
        var framing = HubPageFraming()
        // The database reads the next page while this process decodes and frames the last:
        // on a long catch-up each side then waits less for the other. A read that turns out
        // not to be needed is left to finish and dropped, not cancelled: cancelling a query
        // can cost its connection.
        while true {
            let head = try reader.head(of: row)
            guard reader.since <= head.hubVersion else {
                throw HubError.diverged(since: reader.since, hubVersion: head.hubVersion)
            }
            left = (left.cells - head.cells, left.tombstones - head.tombstones)
            var next: (reader: HubPageReader, row: Task<PostgresRow, any Error>)?
            if let last = head.lastVersion, last < head.hubVersion, left.cells > 0,
                left.tombstones > 0
            {
                let following = HubPageReader(
                    stream: stream, since: last,
                    limit: min(pageRows, left.cells, left.tombstones))
                let (client, logger) = (client, logger)
                next = (following, Task { try await following.fetch(on: client, logger: logger) })
            }
            let page = try reader.page(row, head: head)
            metrics.pulledChanges.increment(by: Int64(page.changes.count))
            try framing.add(page.changes)
            guard let next, !page.isComplete, next.reader.since == page.nextSince else {
                return framing.finish(
                    from: offset, complete: page.isComplete, hubVersion: page.hubVersion)
            }
            (reader, row) = (next.reader, try await next.row.value)
        }
    }

    /// The rows of each query of a long catch-up: large enough that a query's own cost
    /// is small beside its rows', small enough that the first comes back soon.
    static let pipelinedPageRows = 25_000

    /// One page of the stream's state: whole records after `after` in id order, about
    /// `changesMax` changes, covering every version up to the stream's when the page was
    /// read (the state only grows while a reader pages, so the first page's position holds),
    /// with the epoch holding that version.
    public func statePage(in stream: HubStream, after: String?, changesMax: Int) async throws
        -> StatePage
    {
        guard changesMax > 0 else { throw HubError.tooLarge("a page size must be positive") }
        let reader = HubStateReader(stream: stream, after: after, changesMax: changesMax)
        var page = try await reader.read(on: client, logger: logger)
        metrics.pulledChanges.increment(by: Int64(page.changes.count))
        // The epoch of the version the page covers, read after it (as for `batches`).
        let covered = HubOffsets.since(page.covered)
        page.epoch = try await epochs(of: stream, at: covered, covered).epochs.first
        return page
    }

    /// Merges a pushed body of shipped batches (`ShippedBatchReader`'s checks: headers,
    /// CRCs, framing, bounds) into `stream`; refuses it whole, merging nothing, when any
    /// check fails or it announces more than a push may hold. The report names the epoch
    /// holding the merge's version.
    ///
    /// `earlier` is where the pusher's previous pushes were merged, as their receipt said
    /// (`PeerPosition`). When the stream no longer holds it — past its version, or another
    /// epoch holds that version now: the database was restored from an older copy, which
    /// lost those pushes — this throws `.pushesLost` after merging, so the pusher pushes its
    /// whole state. The check comes after the merge: a restore before it begins a new epoch
    /// at this merge's version at the latest (migration 8), so the check cannot miss it.
    public func merge(
        batches bytes: [UInt8], into stream: HubStream, after earlier: PeerPosition? = nil
    ) async throws -> HubMergeReport {
        var report = try await mergeShipped(bytes, into: stream)
        let checked = earlier?.version ?? report.hubVersion
        guard checked > 0 || report.hubVersion > 0 else { return report }
        let reading = try await epochs(of: stream, at: checked, report.hubVersion)
        if let earlier, let reason = reading.reasonNotHeld(inEpoch: earlier.epoch) {
            throw HubError.pushesLost(version: earlier.version, reason: reason)
        }
        report.epoch = reading.epochs.second
        return report
    }

    /// `merge(batches:into:after:)` without the check or the epoch.
    private func mergeShipped(_ bytes: [UInt8], into stream: HubStream) async throws
        -> HubMergeReport
    {
        let changes: [Change<String, String, Value>]
        do {
            let announced = try ShippedBatchReader.announced(in: bytes)
            guard announced.records <= Self.pushRecordsMax,
                announced.rawBytes <= Self.pushRawBytesMax
            else {
                throw HubError.tooLarge(
                    "the push announces \(announced.records) records and \(announced.rawBytes) "
                        + "bytes; at most \(Self.pushRecordsMax) and \(Self.pushRawBytesMax)")
            }
            changes = try ShippedBatchReader.changes(in: bytes, from: 0).changes
        } catch let error as ShippingFormatError {
            throw HubError.badRequest("\(error); nothing of the push was merged")
        }
        return try await merge(changes, into: stream, from: .peer)
    }
}
