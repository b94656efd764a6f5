/// The fixed 64-byte prefix of every batch: an LZ4 skippable frame carrying the batch's
/// metadata, so LZ4 tools step over it. Layout (all little-endian), see docs/format/segment.md:
///
/// ```
///  0  u32 skippable-frame magic 0x184D2A5B    32  u64 minVersion
///  4  u32 skippable-frame size = 56            40  u64 maxVersion
///  8  u32 batch magic "LGBK"                   48  u32 rawLength   (uncompressed payload)
/// 12  u16 format version = 1                   52  u32 storedLength (the LZ4 frame after)
/// 14  u8  codec (1 = LZ4 frame)                56  u32 previousBatchCRC (0 = first in segment)
/// 15  u8  flags (0)                            60  u32 batchCRC: CRC32C of bytes 8..<60
/// 16  u64 baseOffset                               and of the stored payload
/// 24  u32 recordCount
/// 28  u32 lastOffsetDelta (last record's offset - baseOffset)
/// ```
public struct BatchHeader: Hashable, Sendable {
    /// Bytes in a header.
    public static let size = 64
    /// LZ4 skippable frame magic (one of 0x184D2A50...5F).
    static let skippableMagic: UInt32 = 0x184D_2A5B
    /// "LGBK" read as a little-endian u32.
    static let batchMagic: UInt32 = 0x4B42_474C
    /// The only format version this build writes and reads.
    public static let formatVersion: UInt16 = 1
    /// Codec 1: the payload is an `LZ4Frame`.
    public static let codecLZ4Frame: UInt8 = 1

    /// Offset of the batch's first record.
    public var baseOffset: UInt64
    /// Records in the batch.
    public var recordCount: UInt32
    /// Last record's offset minus `baseOffset` (records may leave holes after compaction).
    public var lastOffsetDelta: UInt32
    /// Smallest caller-supplied version among the records.
    public var minVersion: UInt64
    /// Largest caller-supplied version among the records.
    public var maxVersion: UInt64
    /// Uncompressed payload bytes.
    public var rawLength: UInt32
    /// Stored (framed, compressed) payload bytes following the header.
    public var storedLength: UInt32
    /// `batchCRC` of the batch before this one in the segment, 0 for the first.
    public var previousBatchCRC: UInt32
    /// CRC32C of header bytes 8..<60 and of the stored payload.
    public var batchCRC: UInt32
    /// The payload codec.
    public var codec: UInt8 = BatchHeader.codecLZ4Frame
    /// Reserved flags, 0.
    public var flags: UInt8 = 0

    /// The offset after the batch's last record.
    public var nextOffset: UInt64 { baseOffset + UInt64(lastOffsetDelta) + 1 }
    /// Header plus stored payload.
    public var totalSize: Int { Self.size + Int(truncatingIfNeeded: storedLength) }

    /// The 64 header bytes.
    public func encoded() -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.size)
        bytes.appendLittleEndian(Self.skippableMagic)
        bytes.appendLittleEndian(UInt32(Self.size - 8))
        bytes.appendLittleEndian(Self.batchMagic)
        bytes.appendLittleEndian(Self.formatVersion)
        bytes.append(codec)
        bytes.append(flags)
        bytes.appendLittleEndian(baseOffset)
        bytes.appendLittleEndian(recordCount)
        bytes.appendLittleEndian(lastOffsetDelta)
        bytes.appendLittleEndian(minVersion)
        bytes.appendLittleEndian(maxVersion)
        bytes.appendLittleEndian(rawLength)
        bytes.appendLittleEndian(storedLength)
        bytes.appendLittleEndian(previousBatchCRC)
        bytes.appendLittleEndian(batchCRC)
        assert(bytes.count == Self.size)
        return bytes
    }

    /// Parses and checks the header's structure (magics, version, codec, lengths, counts).
    /// The CRC is checked separately, once the payload is read. Returns the reason on failure.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<
        BatchHeader, BatchHeaderFailure
    > {
        guard bytes.count >= size else { return .failure(.truncated) }
        func u32(_ at: Int) -> UInt32 {
            bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
        }
        func u64(_ at: Int) -> UInt64 {
            bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
        }
        guard u32(0) == skippableMagic, u32(4) == UInt32(size - 8), u32(8) == batchMagic else {
            return .failure(.badMagic)
        }
        let version = bytes.loadUnaligned(fromByteOffset: 12, as: UInt16.self).littleEndian
        guard version == formatVersion else { return .failure(.unsupportedVersion(version)) }
        guard bytes[14] == codecLZ4Frame else { return .failure(.unsupportedCodec(bytes[14])) }
        guard bytes[15] == 0 else { return .failure(.unknownFlags(bytes[15])) }
        let header = BatchHeader(
            baseOffset: u64(16), recordCount: u32(24), lastOffsetDelta: u32(28),
            minVersion: u64(32),
            maxVersion: u64(40), rawLength: u32(48), storedLength: u32(52),
            previousBatchCRC: u32(56),
            batchCRC: u32(60))
        guard header.recordCount >= 1, header.recordCount <= Limits.batchRecordCountMax,
            header.lastOffsetDelta >= header.recordCount - 1,
            header.baseOffset <= UInt64.max - UInt64(header.lastOffsetDelta) - 1,
            header.minVersion <= header.maxVersion,
            header.rawLength <= Limits.batchRawSizeMax,
            header.storedLength <= Limits.batchStoredSizeMax,
            header.storedLength >= UInt32(LZ4Frame.header.count + LZ4Frame.endMark.count)
        else { return .failure(.inconsistentFields) }
        return .success(header)
    }

    /// The CRC32C a header with these fields and this stored payload must carry.
    public func computeCRC(payload: UnsafeRawBufferPointer) -> UInt32 {
        let headerBytes = encoded()
        let headerCRC = headerBytes.withUnsafeBytes { bytes in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[8..<60]))
        }
        return CRC32C.checksum(payload, extending: headerCRC)
    }
}

/// Why bytes are not a batch header.
public enum BatchHeaderFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than 64 bytes remain.
    case truncated
    /// A magic number is wrong: this is not a batch boundary.
    case badMagic
    /// A format version this build does not read.
    case unsupportedVersion(UInt16)
    /// A codec this build does not read.
    case unsupportedCodec(UInt8)
    /// Reserved flag bits are set.
    case unknownFlags(UInt8)
    /// Counts, lengths or versions contradict each other or exceed `Limits`.
    case inconsistentFields

    /// The failure in words.
    public var description: String {
        switch self {
        case .truncated: "batch header is cut short"
        case .badMagic: "no batch header magic"
        case .unsupportedVersion(let version): "unsupported batch format version \(version)"
        case .unsupportedCodec(let codec): "unsupported batch codec \(codec)"
        case .unknownFlags(let flags): "unknown batch flags \(flags)"
        case .inconsistentFields: "batch header fields are inconsistent"
        }
    }
}

extension [UInt8] {
    /// Appends a fixed-width integer in little-endian byte order.
    @inlinable
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
