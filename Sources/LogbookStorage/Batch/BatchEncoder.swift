import CMemoryHints

/// Builds one batch: collects records, then frames them as header + LZ4 frame.
///
/// Payload layout, per record: `varint offsetDelta | varint length | bytes`. Offsets strictly
/// increase within a batch (holes allowed, for compacted output).
public struct BatchEncoder: Sendable {
    /// The first record's offset.
    public private(set) var baseOffset: UInt64?
    /// The last record's offset.
    public private(set) var lastOffset: UInt64 = 0
    /// Records added so far.
    public private(set) var recordCount = 0
    private(set) var minVersion = UInt64.max
    private(set) var maxVersion: UInt64 = 0
    /// The uncompressed payload built so far.
    public private(set) var raw: [UInt8] = []

    /// An empty encoder.
    public init() {}

    /// True when no record was added.
    public var isEmpty: Bool { recordCount == 0 }
    /// Uncompressed payload bytes so far.
    public var rawSize: Int { raw.count }

    /// True when `byteCount` more record bytes still fit the batch limits.
    public func canAppend(byteCount: Int) -> Bool {
        recordCount < Limits.batchRecordCountMax
            && raw.count + byteCount + 2 * Varint.sizeMax <= Limits.batchRawSizeMax
    }

    /// Adds a record at `offset` (greater than the previous one) with a caller `version`.
    public mutating func append(offset: UInt64, version: UInt64, record: UnsafeRawBufferPointer) {
        append(offset: offset, version: version, byteCount: record.count) {
            record.writeBytes(to: $0)
        }
    }

    /// Adds a record of `byteCount` bytes at `offset` (greater than the previous one) with a
    /// caller `version`, stored by `write` straight into the payload (returning `byteCount`):
    /// no record buffer between the encoder and the batch.
    public mutating func append(
        offset: UInt64, version: UInt64, byteCount: Int,
        writtenBy write: (UnsafeMutableRawPointer) -> Int
    ) {
        precondition(byteCount <= Limits.recordSizeMax, "record of \(byteCount) bytes")
        precondition(canAppend(byteCount: byteCount), "batch is full")
        let base: UInt64
        if let existing = baseOffset {
            precondition(offset > lastOffset, "offset \(offset) after \(lastOffset)")
            base = existing
        } else {
            baseOffset = offset
            base = offset
        }
        precondition(offset - base < UInt64(UInt32.max), "offset delta overflows")
        let delta = offset - base
        let length = UInt64(byteCount)
        let prefix = Varint.size(of: delta) + Varint.size(of: length)
        raw.append(byteCount: prefix + byteCount) { pointer in
            var written = Varint.write(delta, to: pointer)
            written += Varint.write(length, to: pointer + written)
            return written + write(pointer + written)
        }
        lastOffset = offset
        recordCount += 1
        minVersion = min(minVersion, version)
        maxVersion = max(maxVersion, version)
        // The payload's next lines were last held by the compressor's thread (the buffer
        // is reused): loaded ahead, the records written there do not wait on them, nor does
        // the engine's unlock, which waits for every store before it (perf, session 49).
        raw.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            logbook_prefetch_for_write(base + buffer.count + Self.prefetchAheadBytes)
        }
    }

    /// How far past its end the payload is loaded for the records to come: four lines, a
    /// few records. Past the buffer's capacity the prefetch is wasted, never wrong.
    static let prefetchAheadBytes = 256

    /// The framed batch (header then LZ4 frame) chained to `previousBatchCRC`.
    /// Requires at least one record.
    public func encode(previousBatchCRC: UInt32, hcLevel: Int32? = nil) -> (
        bytes: [UInt8], header: BatchHeader
    ) {
        frame(compressedPayload(hcLevel: hcLevel), previousBatchCRC: previousBatchCRC)
    }

    /// The records as an LZ4 frame: the stored payload, before the header is known.
    public func compressedPayload(hcLevel: Int32? = nil) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(raw.count / 2 + 64)
        raw.withUnsafeBytes { LZ4Frame.encode($0, into: &frame, hcLevel: hcLevel) }
        return frame
    }

    /// Puts the header in front of a payload from `compressedPayload`.
    public func frame(_ payload: [UInt8], previousBatchCRC: UInt32) -> (
        bytes: [UInt8], header: BatchHeader
    ) {
        guard let baseOffset else { preconditionFailure("encode of an empty batch") }
        var header = BatchHeader(
            baseOffset: baseOffset, recordCount: UInt32(recordCount),
            lastOffsetDelta: UInt32(lastOffset - baseOffset), minVersion: minVersion,
            maxVersion: maxVersion, rawLength: UInt32(raw.count),
            storedLength: UInt32(payload.count),
            previousBatchCRC: previousBatchCRC, batchCRC: 0)
        header.batchCRC = payload.withUnsafeBytes { header.computeCRC(payload: $0) }
        var bytes = header.encoded()
        bytes.append(contentsOf: payload)
        return (bytes, header)
    }

    /// Empties the encoder, keeping its buffer.
    public mutating func reset() {
        baseOffset = nil
        lastOffset = 0
        recordCount = 0
        minVersion = .max
        maxVersion = 0
        raw.removeAll(keepingCapacity: true)
    }
}
