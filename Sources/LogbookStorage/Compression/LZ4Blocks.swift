#if canImport(CLZ4) && !LOGBOOK_SWIFT_LZ4
    import CLZ4
#endif

/// The LZ4 block codec the frames use: the system's liblz4 on Linux, and this project's own
/// (`LZ4BlockEncoder`, `LZ4BlockDecoder`) where there is none to link (Apple platforms,
/// whose apps cannot ship Homebrew's), or when the package is built with `LOGBOOK_LZ4=swift`
/// (CI runs the whole suite once that way). Both write blocks the other reads; the bytes
/// they write differ.
public enum LZ4Blocks {
    #if canImport(CLZ4) && !LOGBOOK_SWIFT_LZ4
        /// Whether this build's frames use the project's own codec rather than liblz4.
        public static let usesOwnCodec = false
    #else
        /// Whether this build's frames use the project's own codec rather than liblz4.
        public static let usesOwnCodec = true
    #endif
    /// The codec this build uses: "liblz4" or "swift".
    public static var codecName: String { usesOwnCodec ? "swift" : "liblz4" }

    /// The most a block of `count` bytes can take compressed.
    static func bound(_ count: Int) -> Int { LZ4BlockEncoder.bound(count) }

    /// Compresses `source` into `output` (room for `capacity` bytes, at least `bound`);
    /// returns the bytes written, 0 when it did not fit. With `hcLevel`, LZ4 HC (liblz4) or
    /// the chained search (`LZ4BlockEncoder`, 2^level candidates, at most 4,096).
    /// `ownCodec` picks the project's codec in a build that has liblz4 (to compare them).
    static func compress(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, capacity: Int,
        hcLevel: Int32?, ownCodec: Bool = usesOwnCodec
    ) -> Int {
        #if canImport(CLZ4) && !LOGBOOK_SWIFT_LZ4
            if !ownCodec {
                return compressWithLibLZ4(
                    source, into: output, capacity: capacity, hcLevel: hcLevel)
            }
        #endif
        return LZ4BlockEncoder.compress(
            source, into: output, capacity: capacity,
            depth: hcLevel.map { 1 << Int(min(max($0, 1), 12)) })
    }

    #if canImport(CLZ4) && !LOGBOOK_SWIFT_LZ4
        private static func compressWithLibLZ4(
            _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer,
            capacity: Int, hcLevel: Int32?
        ) -> Int {
            guard let input = source.baseAddress?.assumingMemoryBound(to: CChar.self) else {
                return 0
            }
            let destination = output.assumingMemoryBound(to: CChar.self)
            if let hcLevel {
                return Int(
                    LZ4_compress_HC(
                        input, destination, Int32(source.count), Int32(capacity), hcLevel))
            }
            return Int(
                LZ4_compress_default(input, destination, Int32(source.count), Int32(capacity)))
        }
    #endif

    /// Decodes the independent block `source` into `output` (room for `capacity` bytes);
    /// the bytes written, or nil for a malformed block.
    static func decompress(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, capacity: Int,
        ownCodec: Bool = usesOwnCodec
    ) -> Int? {
        #if canImport(CLZ4) && !LOGBOOK_SWIFT_LZ4
            if !ownCodec {
                guard let input = source.baseAddress?.assumingMemoryBound(to: CChar.self) else {
                    return nil
                }
                let written = LZ4_decompress_safe(
                    input, output.assumingMemoryBound(to: CChar.self), Int32(source.count),
                    Int32(capacity))
                return written >= 0 ? Int(written) : nil
            }
        #endif
        return LZ4BlockDecoder.decode(
            source, into: output, start: 0, capacity: capacity, historyStart: 0)
    }
}
