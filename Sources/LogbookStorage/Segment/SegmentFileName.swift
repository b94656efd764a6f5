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
    /// Suffix of a rewritten segment being written (compaction); deleted on open.
    public static let cleanedSuffix = ".cleaned"
    /// Suffix of a rewritten segment that is complete and synced, waiting to replace the
    /// segments of its range; an open finishes the swap.
    public static let swapSuffix = ".swap"
    /// Suffix of a replaced segment (or index) waiting to be removed; removed on open.
    public static let deletedSuffix = ".deleted"

    /// `00000000000000000042.seg` for base offset 42.
    public static func segment(baseOffset: UInt64) -> String {
        padded(baseOffset) + segmentSuffix
    }

    /// `00000000000000000042.idx` for base offset 42.
    public static func index(baseOffset: UInt64) -> String {
        padded(baseOffset) + indexSuffix
    }

    /// `<base>-<end>.seg.cleaned`: a rewrite of the segments whose base offsets lie in
    /// `base..<end`, being written.
    public static func cleaned(baseOffset: UInt64, endOffset: UInt64) -> String {
        padded(baseOffset) + "-" + padded(endOffset) + segmentSuffix + cleanedSuffix
    }

    /// `<base>-<end>.seg.swap`: the finished rewrite of the segments in `base..<end`.
    public static func swap(baseOffset: UInt64, endOffset: UInt64) -> String {
        padded(baseOffset) + "-" + padded(endOffset) + segmentSuffix + swapSuffix
    }

    /// The range a `.swap` or `.cleaned` name covers, or nil if the name is not one.
    public static func rewriteRange(of name: String) -> Range<UInt64>? {
        let suffix: String
        if name.hasSuffix(segmentSuffix + swapSuffix) {
            suffix = segmentSuffix + swapSuffix
        } else if name.hasSuffix(segmentSuffix + cleanedSuffix) {
            suffix = segmentSuffix + cleanedSuffix
        } else {
            return nil
        }
        let stem = name.dropLast(suffix.count)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ $0.utf8.count == 20 && $0.allSatisfy(\.isASCIIDigit) }),
            let base = UInt64(parts[0]), let end = UInt64(parts[1]), base < end
        else { return nil }
        return base..<end
    }

    /// The base offset a segment file name encodes, or nil if the name is not one.
    public static func baseOffset(ofSegment name: String) -> UInt64? {
        baseOffset(of: name, suffix: segmentSuffix)
    }

    /// True for the name of a file only a log holds: a segment or the segment manifest.
    public static func isLogFile(_ name: String) -> Bool {
        baseOffset(ofSegment: name) != nil || name == SegmentManifest.fileName
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

extension Character {
    /// True for 0 through 9 (ASCII only).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
