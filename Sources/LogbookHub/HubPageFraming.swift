import Logbook
import LogbookCRDT

/// Pages of a stream's changes framed as shipped batches, each change at its hub offset
/// (`HubOffsets`: its version and its place among the version's rows). Pages must come in
/// version order and hold whole versions, as `logbook_page` answers them.
struct HubPageFraming {
    private var writer = ShippedBatchWriter()
    private var version: UInt64 = 0
    private var index: UInt64 = 0

    /// Frames `changes`; throws when a version holds more rows than an offset can number.
    mutating func add(_ changes: [Change<String, String, Value>]) throws {
        for change in changes {
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
    }

    /// The batches, read from `offset`, after a last page that was `complete` (the stream's
    /// end in its snapshot, at `hubVersion`).
    mutating func finish(from offset: UInt64, complete: Bool, hubVersion: UInt64)
        -> FetchedBatches
    {
        let next = writer.changeCount > 0 ? writer.nextOffset : offset
        let bytes = writer.finish()
        return FetchedBatches(
            bytes: bytes, batchCount: writer.batchCount,
            durableOffset: complete ? next : HubOffsets.after(version: hubVersion),
            nextOffset: next)
    }
}
