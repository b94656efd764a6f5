import LogbookCRDT
import LogbookStorage

/// Frames changes as shipped batches (the log's batch format, docs/format/segment.md) when
/// they are not already stored that way: what a node pushes after leaving out a peer's own
/// changes, and what a hub sends from its rows. `ShippedBatchReader` reads the result.
public struct ShippedBatchWriter: Sendable {
    /// The batches so far, concatenated.
    public private(set) var bytes: [UInt8] = []
    /// How many batches `bytes` holds.
    public private(set) var batchCount = 0
    /// How many changes were added.
    public private(set) var changeCount = 0
    /// The offset after the last change added (0 before any).
    public private(set) var nextOffset: UInt64 = 0
    private var encoder = BatchEncoder()
    private var previousCRC: UInt32 = 0
    private var record: [UInt8] = []

    /// An empty body.
    public init() {}

    /// Adds `change` at `offset`, above every offset added before; its record's version is
    /// its `localDbVersion`. A change whose record is over `Limits.recordSizeMax` cannot
    /// exist (`ChangeLimits` bounds every part far below it).
    public mutating func add(_ change: Change<String, String, Value>, at offset: UInt64) {
        record.removeAll(keepingCapacity: true)
        // Not through `.change(change)`: wrapping the change in the enum copies it.
        ChangeRecordCodec.encode(change, localDbVersion: change.localDbVersion, into: &record)
        if !encoder.canAppend(byteCount: record.count) { closeBatch() }
        record.withUnsafeBytes {
            encoder.append(offset: offset, version: change.localDbVersion, record: $0)
        }
        changeCount += 1
        nextOffset = offset + 1
    }

    /// The uncompressed bytes added since the last batch was closed.
    public var openBytes: Int { encoder.rawSize }

    /// Frames the records added since the last batch as one batch.
    public mutating func closeBatch() {
        guard !encoder.isEmpty else { return }
        let (framed, header) = encoder.encode(previousBatchCRC: previousCRC)
        bytes += framed
        previousCRC = header.batchCRC
        batchCount += 1
        encoder.reset()
    }

    /// The finished body: every batch closed.
    public mutating func finish() -> [UInt8] {
        closeBatch()
        return bytes
    }
}
