/// Names of the files in a log directory: a segment and its index are named by the
/// segment's first offset, zero-padded to 20 digits (`00000000000000000042.seg`), so a plain
/// directory listing sorts them in log order.
public enum SegmentFileName {
    /// Segment file suffix.
    public static let segmentSuffix = ".seg"
    /// Sparse index file suffix.
    public static let indexSuffix = ".idx"
    /// Suffix of a file being written that is not yet part of the log.
    public static let temporarySuffix = ".tmp"

    /// `00000000000000000042.seg` for base offset 42.
    public static func segment(baseOffset: UInt64) -> String {
        padded(baseOffset) + segmentSuffix
    }

    /// `00000000000000000042.idx` for base offset 42.
    public static func index(baseOffset: UInt64) -> String {
        padded(baseOffset) + indexSuffix
    }

    /// The base offset a segment file name encodes, or nil if the name is not one.
    public static func baseOffset(ofSegment name: String) -> UInt64? {
        baseOffset(of: name, suffix: segmentSuffix)
    }

    /// The base offset an index file name encodes, or nil if the name is not one.
    public static func baseOffset(ofIndex name: String) -> UInt64? {
        baseOffset(of: name, suffix: indexSuffix)
    }

    private static func baseOffset(of name: String, suffix: String) -> UInt64? {
        guard name.utf8.count == 20 + suffix.utf8.count, name.hasSuffix(suffix) else { return nil }
        let digits = name.utf8.prefix(20)
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    private static func padded(_ offset: UInt64) -> String {
        let digits = String(offset)
        return String(repeating: "0", count: 20 - digits.count) + digits
    }
}
