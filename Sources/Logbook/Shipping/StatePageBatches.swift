import LogbookCRDT

/// A state page in the log's binary form: the page's changes as change records in shipped
/// batches (docs/format/segment.md), numbered from offset 0, each batch chained to the one
/// before. What `GET /snapshot?format=batches` answers, so a node taking a peer's state
/// decodes it with the same checked reader, bounds and CRCs as a pull of batches, at the
/// log's decoding speed instead of JSON's.
public enum StatePageBatches {
    /// The value of `GET /snapshot`'s `format` parameter that asks for this form.
    public static let formatName = "batches"
    /// The answer's `Content-Type`: a peer from before this form answers JSON instead,
    /// and the receiver tells the two apart by it.
    public static let mediaType = "application/vnd.logbook.batches"

    /// Uncompressed bytes gathered before a batch is closed: large enough for LZ4 to find
    /// the repeats across records, small enough that a page streams in several batches.
    static let batchRawTarget = 1 << 20

    /// The body for `changes`, and how many batches it holds.
    public static func encode(_ changes: [Change<String, String, Value>]) -> (
        bytes: [UInt8], batchCount: Int
    ) {
        var writer = ShippedBatchWriter()
        // By index: `enumerated()` would copy each change only to encode it.
        for offset in changes.indices {
            writer.add(changes[offset], at: UInt64(offset))
            if writer.openBytes >= batchRawTarget { writer.closeBatch() }
        }
        let bytes = writer.finish()
        return (bytes, writer.batchCount)
    }

    /// The changes of a body from `encode`, refused whole when anything is wrong: a batch's
    /// header, CRC or framing, a record, uncompressed bytes over `rawBytesMax` (announced by
    /// the headers, so checked before anything is decompressed), or records not numbered
    /// 0, 1, 2, … .
    public static func decode(_ bytes: [UInt8], rawBytesMax: Int) throws(ShippingFormatError)
        -> [Change<String, String, Value>]
    {
        let announced = try ShippedBatchReader.announced(in: bytes)
        guard announced.rawBytes <= rawBytesMax else {
            throw ShippingFormatError(
                position: 0,
                reason:
                    "the page announces \(announced.rawBytes) uncompressed bytes, over the "
                    + "\(rawBytesMax) accepted")
        }
        guard ShippedBatchReader.firstBaseOffset(in: bytes) ?? 0 == 0 else {
            throw ShippingFormatError(position: 0, reason: "a state page starts at offset 0")
        }
        let (changes, end) = try ShippedBatchReader.changes(in: bytes, from: 0)
        guard end == UInt64(changes.count) else {
            throw ShippingFormatError(
                position: 0,
                reason: "\(changes.count) changes numbered up to \(end): a state page numbers "
                    + "its records 0, 1, 2, … without gaps or clock records")
        }
        return changes
    }
}
