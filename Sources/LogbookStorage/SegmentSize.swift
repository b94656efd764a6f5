/// A segment size as people write it: `4096`, `64K`, `4M`, `4MiB`, `1G` (binary units),
/// within `Limits.segmentSizes` (`logbook init --segment-size`).
public enum SegmentSize {
    /// The bytes `text` names; throws `.invalidArgument` saying what was expected.
    public static func bytes(_ text: String) throws(StorageError) -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) }
        var unit: Int64 = 1
        if let last = digits.last, let multiplier = units[last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard let count = Int64(digits), count > 0 else {
            throw StorageError(
                .invalidArgument, "a segment size such as 4M or 65536 was expected, not \(text)")
        }
        let (size, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, Limits.segmentSizes.contains(size) else {
            throw StorageError(
                .invalidArgument,
                "a segment size within 4K and 2G (\(Limits.segmentSizeMin)...\(Limits.segmentSizeMax) bytes) was expected, not \(text)"
            )
        }
        return size
    }
}
