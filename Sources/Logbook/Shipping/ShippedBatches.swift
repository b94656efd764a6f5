import LogbookCRDT
import LogbookStorage

/// Stored batches read for a peer, exactly as they are on disk (no decode, no re-encode).
public struct ShippedBatches: Sendable {
    /// The batches, concatenated: each a 64-byte header in an LZ4 skippable frame and an LZ4
    /// frame (docs/format/segment.md).
    public var bytes: [UInt8]
    /// How many batches `bytes` holds.
    public var batchCount: Int
    /// Where the next pull starts: just past the last batch shipped (the request's offset
    /// when nothing was).
    public var nextOffset: UInt64
    /// The sender's high watermark: every offset below it is durable there.
    public var durableOffset: UInt64
    /// The sender's history start (`Logbook.historyStart`); pulls from below it need a snapshot.
    public var startOffset: UInt64
    /// The epoch that wrote the record just before `nextOffset` (0 when none or older than
    /// every epoch kept): with `nextOffset`, the position the receiver holds afterwards.
    public var epochId: UInt64 = 0
}

/// Why shipped bytes were refused: which batch, at which byte, and what was wrong.
public struct ShippingFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte position in the shipped body.
    public var position: Int
    /// What was wrong.
    public var reason: String

    /// A one-line explanation.
    public var description: String { "shipped batches, byte \(position): \(reason)" }
}

/// Checks and decodes shipped batches before anything is merged: every header's structure,
/// every CRC, decompression, record framing, offsets rising from `from` on; any failure
/// refuses the whole body.
public enum ShippedBatchReader {
    /// The changes in `bytes`, in log order, with the offset after the last batch.
    public static func changes(in bytes: [UInt8], from offset: UInt64) throws(ShippingFormatError)
        -> (changes: [Change<String, String, Value>], nextOffset: UInt64)
    {
        var changes: [Change<String, String, Value>] = []
        let end = try forEachChange(in: bytes, from: offset) { _, change in changes.append(change) }
        return (changes, end)
    }

    /// `changes(in:from:)` with each change's offset.
    public static func changesWithOffsets(in bytes: [UInt8], from offset: UInt64)
        throws(ShippingFormatError) -> (
            changes: [(UInt64, Change<String, String, Value>)], nextOffset: UInt64
        )
    {
        var changes: [(UInt64, Change<String, String, Value>)] = []
        let end = try forEachChange(in: bytes, from: offset) { changes.append(($0, $1)) }
        return (changes, end)
    }

    /// The records and uncompressed bytes the batches' headers announce, read from the
    /// headers alone (nothing decompressed): a receiver bounds what decoding would cost
    /// before it pays it. Checks each header's structure and that the batches tile the body.
    public static func announced(in bytes: [UInt8]) throws(ShippingFormatError)
        -> (records: Int, rawBytes: Int, batches: Int)
    {
        var totals = (records: 0, rawBytes: 0, batches: 0)
        var position = 0
        var failure: ShippingFormatError?
        bytes.withUnsafeBytes { body in
            while position < body.count {
                let rest = UnsafeRawBufferPointer(rebasing: body[position...])
                switch BatchHeader.decode(rest) {
                case .failure(let reason):
                    failure = ShippingFormatError(
                        position: position, reason: "bad batch header: \(reason)")
                    return
                case .success(let header):
                    guard header.totalSize <= rest.count else {
                        failure = ShippingFormatError(
                            position: position, reason: "batch runs past the body")
                        return
                    }
                    totals.records += Int(header.recordCount)
                    totals.rawBytes += Int(header.rawLength)
                    totals.batches += 1
                    position += header.totalSize
                }
            }
        }
        if let failure { throw failure }
        return totals
    }

    /// The base offset of the first batch in `bytes`, when its header decodes.
    public static func firstBaseOffset(in bytes: [UInt8]) -> UInt64? {
        bytes.withUnsafeBytes { body in
            if case .success(let header) = BatchHeader.decode(body) {
                header.baseOffset
            } else {
                nil
            }
        }
    }

    /// Hands `accept` each change after `offset` with its offset, in log order; a failure
    /// throws part way, so callers keep what they collected only when this returns.
    private static func forEachChange(
        in bytes: [UInt8], from offset: UInt64,
        _ accept: (UInt64, consuming Change<String, String, Value>) -> Void
    ) throws(ShippingFormatError) -> UInt64 {
        var position = 0
        var expectedAtLeast = offset
        var raw: [UInt8] = []
        var columnNames = RecentShortStrings()
        var failure: ShippingFormatError?
        bytes.withUnsafeBytes { body in
            while position < body.count, failure == nil {
                let rest = UnsafeRawBufferPointer(rebasing: body[position...])
                let header: BatchHeader
                switch BatchHeader.decode(rest) {
                case .failure(let reason):
                    failure = ShippingFormatError(
                        position: position, reason: "bad batch header: \(reason)")
                    return
                case .success(let decoded): header = decoded
                }
                guard header.totalSize <= rest.count else {
                    failure = ShippingFormatError(
                        position: position, reason: "batch runs past the body")
                    return
                }
                // The first batch may start before `offset` (a pull from inside a batch);
                // every later one must start where the previous ended or after.
                let follows =
                    position == 0
                    ? header.nextOffset > offset : header.baseOffset >= expectedAtLeast
                guard follows else {
                    failure = ShippingFormatError(
                        position: position,
                        reason:
                            "batch at offset \(header.baseOffset) does not follow \(expectedAtLeast)"
                    )
                    return
                }
                let payload = UnsafeRawBufferPointer(
                    rebasing: rest[BatchHeader.size..<header.totalSize])
                if let reason = BatchDecoder.unpack(
                    header: header, storedPayload: payload, into: &raw)
                {
                    failure = ShippingFormatError(position: position, reason: reason)
                    return
                }
                raw.withUnsafeBytes { records in
                    _ = BatchDecoder.forEachRecord(records) { delta, record in
                        // A new value per change, handed over whole (as in a replay).
                        var change = ChangeRecordCodec.blankChange()
                        let decoded = ChangeRecordCodec.decode(
                            record, into: &change, columnNames: &columnNames)
                        switch decoded {
                        // A pull from inside a batch gets the whole batch; the records before
                        // the cursor were merged already, and after a tombstone GC merging
                        // one again could bring back what was collected.
                        case .change where header.baseOffset + UInt64(delta) < offset: break
                        case .change: accept(header.baseOffset + UInt64(delta), change)
                        case .clock: break
                        case .failure(let reason):
                            failure = ShippingFormatError(
                                position: position,
                                reason: "record at offset \(header.baseOffset + delta): \(reason)")
                            return false
                        }
                        return true
                    }
                }
                expectedAtLeast = header.nextOffset
                position += header.totalSize
            }
        }
        if let failure { throw failure }
        return expectedAtLeast
    }
}

extension Logbook {
    /// Reads stored batches from `offset` on, up to `maxBytes` (at least one batch when there
    /// is one), only below the durable high watermark: a peer never receives what a crash
    /// here could still take back. Throws `.snapshotRequired` below the log start.
    ///
    /// The receiver states the position it holds: `offset`, and the epoch of the record
    /// before it (`epochId`, from the previous answer). Throws `.diverged` when this log does
    /// not hold that position — `offset` past the durable end, or the record before it
    /// written in another epoch here (this log was restored from an older copy, or is
    /// another log): the receiver must resync from state. Without `epochId` (a receiver from
    /// before epochs) only the end is checked.
    public func storedBatches(from offset: UInt64, maxBytes: Int, epochId: UInt64? = nil)
        throws(LogbookError) -> ShippedBatches
    {
        let (cursor, durable, start) = try locked {
            () throws(LogbookError) -> (LogCursor?, UInt64, UInt64) in
            let durable = log.durableOffset
            let start = historyStartHeld
            try checkPosition(offset, epochId: epochId, durable: durable)
            guard offset >= start else { return (nil, durable, start) }
            guard offset < durable else { return (nil, durable, start) }
            do throws(StorageError) {
                let cursor = try log.makeCursor(from: offset) { [unowned self] resume in
                    self.locked { self.log.spans(from: resume) }
                }
                return (cursor, durable, start)
            } catch {
                throw LogbookError(error)
            }
        }
        if offset < start {
            throw LogbookError(
                .snapshotRequired, "offset \(offset) is below the log start \(start)",
                path: directory, logOffset: offset)
        }
        var shipped = ShippedBatches(
            bytes: [], batchCount: 0, nextOffset: offset, durableOffset: durable,
            startOffset: start)
        if let cursor {
            try readBatches(cursor, durable: durable, maxBytes: maxBytes, into: &shipped)
        }
        let end = shipped.nextOffset
        shipped.epochId = end == 0 ? 0 : locked { log.epochId(holding: end - 1) }
        return shipped
    }

    /// Appends whole durable batches from `cursor` to `shipped`, up to `maxBytes` (at least
    /// one batch).
    private func readBatches(
        _ cursor: LogCursor, durable: UInt64, maxBytes: Int, into shipped: inout ShippedBatches
    ) throws(LogbookError) {
        do throws(StorageError) {
            while try cursor.next(), let header = cursor.header {
                guard header.nextOffset <= durable else { break }
                if shipped.batchCount > 0 && shipped.bytes.count + header.totalSize > maxBytes {
                    break
                }
                shipped.bytes += try cursor.storedBytes()
                shipped.batchCount += 1
                shipped.nextOffset = header.nextOffset
            }
        } catch {
            throw LogbookError(error)
        }
    }
}

extension Logbook {
    /// Throws `.diverged` unless this log holds the position a peer states it has merged to:
    /// `offset` at most the durable end (nothing past it was ever shipped) and, with
    /// `epochId`, the record before `offset` written in that epoch. The check a fetch makes
    /// of its starting position, asked of an acknowledgement before it is stored.
    public func checkPosition(_ offset: UInt64, epochId: UInt64?) throws(LogbookError) {
        try locked { () throws(LogbookError) in
            try checkPosition(offset, epochId: epochId, durable: log.durableOffset)
        }
    }

    /// Under the lock: throws `.diverged` unless this log holds the stated position.
    private func checkPosition(_ offset: UInt64, epochId: UInt64?, durable: UInt64)
        throws(LogbookError)
    {
        if offset > durable {
            throw LogbookError(
                .diverged,
                "offset \(offset) is past this log's durable end \(durable): the receiver holds "
                    + "records this log does not (restored from an older copy?)",
                path: directory, logOffset: offset)
        }
        guard let epochId, offset > 0 else { return }
        guard !log.holds(offset: offset - 1, epochId: epochId, below: durable) else { return }
        throw LogbookError(
            .diverged,
            "the record before offset \(offset) was not written in epoch \(epochId) here (it "
                + "was in epoch \(log.epochId(holding: offset - 1))): this log and the "
                + "receiver's copy of it differ from there on", path: directory, logOffset: offset)
    }
}

extension Logbook {
    /// The id of the epoch that wrote the record at `offset` (0: none, or older than every
    /// epoch kept). A snapshot covering offsets below N is positioned at `epochId(N - 1)`.
    public func epochId(holding offset: UInt64) -> UInt64 {
        locked { log.epochId(holding: offset) }
    }

    /// The id of the epoch that wrote the record before `offset` (0 for offset 0): with
    /// `offset`, the position a cursor at `offset` names.
    public func epochId(before offset: UInt64) -> UInt64 {
        offset == 0 ? 0 : epochId(holding: offset - 1)
    }
}
