/// Every bound on sizes and counts read from disk or taken from callers, in one place.
///
/// Loops over external input are bounded by these; `LimitsTests` checks they are consistent.
public enum Limits {
    /// The largest single record, in bytes.
    public static let recordSizeMax = 16 * 1024 * 1024
    /// The largest uncompressed batch payload, in bytes: one maximal record and its framing.
    public static let batchRawSizeMax = recordSizeMax + 64
    /// The most records one batch may hold.
    public static let batchRecordCountMax = 1 << 20
    /// The largest LZ4 block (the frame's 4 MiB maximum block size).
    public static let lz4BlockSizeMax = 4 * 1024 * 1024
    /// The largest stored (compressed) batch: worst-case LZ4 expansion of every block, block
    /// size fields, and the frame's header and end mark.
    public static let batchStoredSizeMax =
        batchRawSizeMax + (batchRawSizeMax / lz4BlockSizeMax + 1) * (4 + lz4BlockSizeMax / 255 + 16)
        + 64
    /// The smallest segment size a log may be configured with.
    public static let segmentSizeMin: Int64 = 4 * 1024
    /// The largest segment size a log may be configured with (offsets inside are Int64, but
    /// the index stores 32-bit positions). Int64 on every platform: 2 GiB is past a 32-bit
    /// `Int` (watchOS's arm64_32).
    public static let segmentSizeMax: Int64 = 1 << 31
    /// Every segment size a log may be configured with, recorded with, or asked for.
    public static let segmentSizes = segmentSizeMin...segmentSizeMax
    /// The most zeros a log may be configured to write ahead of its active segment's end.
    public static let zeroFillAheadBytesMax = 64 * 1024 * 1024
    /// How often a cursor re-plans when the segments it was about to read were replaced.
    public static let cursorReplanAttemptsMax = 8
    /// How often a read-only open reads a directory again that a writer changed meanwhile
    /// (`Log.openReadOnly`): about 2 s of tries in all.
    public static let readBesideWriterAttemptsMax = 40
    /// The most segment files a log directory may hold.
    public static let segmentCountMax = 1 << 20
}
