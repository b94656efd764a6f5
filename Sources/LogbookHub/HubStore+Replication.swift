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
    /// versions, about `maxBytes` of them (at least one version). Throws `.diverged` when
    /// `offset` names a version the stream has not reached, `.snapshotRequired` below the
    /// stream's GC horizon.
    public func batches(in stream: HubStream, from offset: UInt64, maxBytes: Int) async throws
        -> FetchedBatches
    {
        let since = HubOffsets.since(offset)
        // Shipped changes take 10–40 bytes each; a page of whole versions about that large.
        let page = try await changes(
            in: stream, since: since, limit: max(1, min(maxBytes / 16, 200_000)))
        guard since <= page.hubVersion else {
            throw HubError.diverged(since: since, hubVersion: page.hubVersion)
        }
        var writer = ShippedBatchWriter()
        var version: UInt64 = 0
        var index: UInt64 = 0
        for change in page.changes {
            if change.localDbVersion != version {
                version = change.localDbVersion
                index = 0
            }
            guard let at = HubOffsets.offset(version: version, index: index) else {
                throw HubError.corruptRow(
                    "hub version \(version) holds over \(HubOffsets.rowsPerVersionMax - 1) rows")
            }
            writer.add(change, at: at)
            index += 1
        }
        let next = writer.changeCount > 0 ? writer.nextOffset : offset
        let bytes = writer.finish()
        return FetchedBatches(
            bytes: bytes, batchCount: writer.batchCount,
            durableOffset: page.isComplete ? next : HubOffsets.after(version: page.hubVersion),
            nextOffset: next)
    }

    /// One page of the stream's state: whole records after `after` in id order, about
    /// `changesMax` changes, covering every version up to the stream's when the page was
    /// read (the state only grows while a reader pages, so the first page's position holds).
    public func statePage(in stream: HubStream, after: String?, changesMax: Int) async throws
        -> StatePage
    {
        guard changesMax > 0 else { throw HubError.tooLarge("a page size must be positive") }
        let reader = HubStateReader(stream: stream, after: after, changesMax: changesMax)
        let page = try await reader.read(on: client, logger: logger)
        metrics.pulledChanges.increment(by: Int64(page.changes.count))
        return page
    }

    /// Merges a pushed body of shipped batches (`ShippedBatchReader`'s checks: headers,
    /// CRCs, framing, bounds) into `stream`; refuses it whole, merging nothing, when any
    /// check fails or it announces more than a push may hold.
    public func merge(batches bytes: [UInt8], into stream: HubStream) async throws
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
        return try await merge(changes, into: stream)
    }
}
