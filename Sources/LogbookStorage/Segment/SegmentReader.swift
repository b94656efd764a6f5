/// Reads the batches of one segment in order, with bounded memory: a read-ahead window of
/// `readAheadBytes`, or one batch when a batch is larger.
///
/// Every batch is checked before use: header structure, CRC32C over header and stored payload
/// (before decompression), LZ4 frame, record framing, and the chain of previous-batch CRCs.
public final class SegmentReader {
    /// One step of the walk.
    public enum Step {
        /// A valid batch at this byte position; its records are unpacked (see `raw`) unless
        /// headers only were asked for.
        case batch(BatchHeader, position: Int64)
        /// The segment ends cleanly at this position.
        case end(position: Int64)
        /// The bytes at this position are not a valid batch; the header is present when it
        /// parsed but the payload did not check out.
        case invalid(position: Int64, reason: String, header: BatchHeader?)
    }

    /// Default read-ahead window.
    public static let readAheadBytes = 1 << 20

    let file: any StorageFile
    /// The position of the next batch.
    public private(set) var position: Int64
    /// Where the readable data ends (file size when the reader was made).
    public let endPosition: Int64
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0
    private var expectedPreviousCRC: UInt32?
    /// The unpacked payload of the most recent batch.
    public private(set) var raw: [UInt8] = []
    /// The CRC of the most recent valid batch (0 before the first).
    public private(set) var lastBatchCRC: UInt32 = 0

    /// A reader from `position` (a batch boundary) to `endPosition`. `previousBatchCRC` is the
    /// CRC the first batch must chain to; nil skips that check (a seek into the middle).
    public init(
        file: any StorageFile, from position: Int64, to endPosition: Int64,
        previousBatchCRC: UInt32?
    ) {
        self.file = file
        self.position = position
        self.endPosition = endPosition
        expectedPreviousCRC = previousBatchCRC
    }

    /// The next batch, verified and unpacked into `raw`.
    public func next() throws(StorageError) -> Step {
        let start = position
        if start >= endPosition { return .end(position: start) }
        guard try fill(start, count: BatchHeader.size) else {
            return .invalid(position: start, reason: "batch header is cut short", header: nil)
        }
        let decoded = window.withUnsafeBytes { bytes in
            BatchHeader.decode(
                UnsafeRawBufferPointer(
                    rebasing: bytes[windowIndex(start)..<windowIndex(start + 64)]))
        }
        let header: BatchHeader
        switch decoded {
        case .success(let parsed): header = parsed
        case .failure(let failure):
            return .invalid(position: start, reason: failure.description, header: nil)
        }
        let end = start + Int64(header.totalSize)
        guard end <= endPosition else {
            return .invalid(
                position: start, reason: "batch runs past the end of the segment", header: header)
        }
        if let expected = expectedPreviousCRC, header.previousBatchCRC != expected {
            return .invalid(
                position: start, reason: "previous-batch checksum does not chain", header: header)
        }
        guard try fill(start + 64, count: Int(truncatingIfNeeded: header.storedLength)) else {
            return .invalid(
                position: start, reason: "batch payload is cut short", header: header)
        }
        let payloadStart = windowIndex(start + 64)
        let failure = window.withUnsafeBytes { bytes in
            BatchDecoder.unpack(
                header: header,
                storedPayload: UnsafeRawBufferPointer(
                    rebasing: bytes[
                        payloadStart..<(payloadStart + Int(truncatingIfNeeded: header.storedLength))
                    ]),
                into: &raw)
        }
        if let failure { return .invalid(position: start, reason: failure, header: header) }
        expectedPreviousCRC = header.batchCRC
        lastBatchCRC = header.batchCRC
        position = end
        return .batch(header, position: start)
    }

    /// Calls `body` with the stored bytes (header and frame) of the batch at `start` of
    /// `length` bytes; valid right after `next()` returned it.
    public func withStoredBytes<R>(
        at start: Int64, length: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(StorageError) -> R? {
        guard try fill(start, count: length) else { return nil }
        return window.withUnsafeBytes { bytes in
            body(
                UnsafeRawBufferPointer(
                    rebasing: bytes[windowIndex(start)..<(windowIndex(start) + length)]))
        }
    }

    private func windowIndex(_ filePosition: Int64) -> Int {
        Int(truncatingIfNeeded: filePosition - windowStart)
    }

    /// Makes `count` bytes at `start` available in the window; false at end of data.
    private func fill(_ start: Int64, count: Int) throws(StorageError) -> Bool {
        if start + Int64(count) > endPosition { return false }
        if start >= windowStart && start + Int64(count) <= windowStart + Int64(window.count) {
            return true
        }
        let wanted = max(count, Self.readAheadBytes)
        let available = Int(truncatingIfNeeded: min(Int64(wanted), endPosition - start))
        window = try file.read(at: start, count: available)
        windowStart = start
        return window.count >= count
    }
}
