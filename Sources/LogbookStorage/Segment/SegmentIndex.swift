/// A sparse map from offsets to byte positions in one segment, plus the segment's summary.
///
/// One entry every `indexIntervalBytes` of segment data (always one for the first batch), so
/// a read from an offset seeks to the nearest entry at or before it and scans a few batches.
/// Derived data: persisted beside a sealed segment, checked against the segment's size and
/// its own CRC when loaded, and rebuilt from the batch headers whenever it does not match.
///
/// File layout (little-endian): `u32 magic "LGIX" | u16 version 2 | u16 0 | u64 baseOffset |
/// u64 nextOffset | u64 segmentSize | u64 maxVersion | u64 lastBatchPosition | u32
/// lastBatchCRC | u32 entryCount | entries (u64 offset, u64 position)... | u32 CRC32C of
/// everything before`. Version 1 (without the last batch) is not read: it is rebuilt.
public struct SegmentIndex: Hashable, Sendable {
    /// One sparse entry: a batch's base offset and its byte position.
    public struct Entry: Hashable, Sendable {
        /// The batch's base offset.
        public var offset: UInt64
        /// The batch's byte position in the segment.
        public var position: Int64
    }

    static let magic: UInt32 = 0x5849_474C  // "LGIX"
    static let version: UInt16 = 2

    /// The segment's first offset (from its name).
    public var baseOffset: UInt64
    /// The offset after the segment's last record.
    public var nextOffset: UInt64
    /// Bytes of valid batches covered.
    public var segmentSize: Int64
    /// The largest record version in the segment (0 when empty).
    public var maxVersion: UInt64
    /// The byte position of the last batch (-1 when empty).
    public var lastBatchPosition: Int64 = -1
    /// The batch CRC of the last batch (0 when empty). The batches chain their CRCs, so
    /// this one stands for every byte of the segment: the manifest records it for each
    /// sealed segment, and opening compares it with the segment's last batch header.
    public var lastBatchCRC: UInt32 = 0
    /// Sparse entries, ascending by offset and position.
    public private(set) var entries: [Entry] = []
    private var lastIndexedPosition: Int64 = -1

    /// An empty index for a segment starting at `baseOffset`.
    public init(baseOffset: UInt64) {
        self.baseOffset = baseOffset
        nextOffset = baseOffset
        segmentSize = 0
        maxVersion = 0
    }

    /// Records a batch that starts at `position`; adds an entry when the interval has passed.
    public mutating func noteBatch(_ header: BatchHeader, at position: Int64, intervalBytes: Int) {
        precondition(position == segmentSize, "batch at \(position), index covers \(segmentSize)")
        precondition(
            header.baseOffset >= nextOffset, "batch offset \(header.baseOffset) < \(nextOffset)")
        if lastIndexedPosition < 0 || position - lastIndexedPosition >= Int64(intervalBytes) {
            entries.append(Entry(offset: header.baseOffset, position: position))
            lastIndexedPosition = position
        }
        nextOffset = header.nextOffset
        lastBatchPosition = position
        lastBatchCRC = header.batchCRC
        segmentSize = position + Int64(header.totalSize)
        maxVersion = max(maxVersion, header.maxVersion)
    }

    /// The byte position to start scanning from to find `offset`.
    public func startPosition(for offset: UInt64) -> Int64 {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].offset <= offset { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? 0 : entries[low - 1].position
    }

    /// The index file's bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(Self.magic)
        bytes.appendLittleEndian(Self.version)
        bytes.appendLittleEndian(UInt16(0))
        bytes.appendLittleEndian(baseOffset)
        bytes.appendLittleEndian(nextOffset)
        bytes.appendLittleEndian(UInt64(segmentSize))
        bytes.appendLittleEndian(maxVersion)
        bytes.appendLittleEndian(UInt64(bitPattern: lastBatchPosition))
        bytes.appendLittleEndian(lastBatchCRC)
        bytes.appendLittleEndian(UInt32(entries.count))
        for entry in entries {
            bytes.appendLittleEndian(entry.offset)
            bytes.appendLittleEndian(UInt64(entry.position))
        }
        bytes.appendLittleEndian(CRC32C.checksum(bytes))
        return bytes
    }

    /// Parses an index file; nil when it is damaged or not for this segment and size.
    public static func decode(_ bytes: [UInt8], baseOffset: UInt64, segmentSize: Int64)
        -> SegmentIndex?
    {
        let fixedSize = 56
        guard bytes.count >= fixedSize + 4 else { return nil }
        return bytes.withUnsafeBytes { raw -> SegmentIndex? in
            func u32(_ at: Int) -> UInt32 {
                raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
            }
            func u64(_ at: Int) -> UInt64 {
                raw.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
            }
            let count = Int(truncatingIfNeeded: u32(52))
            guard count <= bytes.count / 16, bytes.count == fixedSize + count * 16 + 4,
                u32(0) == magic,
                raw.loadUnaligned(fromByteOffset: 4, as: UInt16.self).littleEndian == version,
                CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<(bytes.count - 4)]))
                    == u32(bytes.count - 4),
                u64(8) == baseOffset, u64(24) == UInt64(segmentSize)
            else { return nil }
            var index = SegmentIndex(baseOffset: baseOffset)
            index.nextOffset = u64(16)
            index.segmentSize = segmentSize
            index.maxVersion = u64(32)
            index.lastBatchPosition = Int64(bitPattern: u64(40))
            index.lastBatchCRC = u32(48)
            guard
                segmentSize == 0
                    ? index.lastBatchPosition == -1
                    : (0..<segmentSize).contains(index.lastBatchPosition)
            else { return nil }
            var previous: Entry?
            for number in 0..<count {
                let entry = Entry(
                    offset: u64(fixedSize + number * 16),
                    position: Int64(bitPattern: u64(fixedSize + 8 + number * 16)))
                guard entry.position >= 0, entry.position < segmentSize, entry.offset >= baseOffset,
                    entry.offset < index.nextOffset
                else { return nil }
                if let previous,
                    entry.offset <= previous.offset || entry.position <= previous.position
                {
                    return nil
                }
                index.entries.append(entry)
                previous = entry
            }
            index.lastIndexedPosition = previous?.position ?? -1
            return index
        }
    }
}
