import CLZ4Codec

/// Compresses one LZ4 block with the project's own codec (`CLZ4Codec`, written here from the
/// published block format) for platforms without a system liblz4 (`LZ4Blocks`). Its output
/// is any valid block, not liblz4's bytes: liblz4, `lz4 -dc` and `LZ4BlockDecoder` read it.
///
/// The format's end rules hold: the last 5 bytes are literals, and no match starts in the
/// last 12. Two searches: `fast` finds matches through one hash table of recent positions,
/// skipping ahead faster the longer it finds none (as LZ4's own fast mode does); `chained`
/// keeps every position in hash chains over the 64 KiB window and takes the longest match
/// of up to `depth` candidates (for compaction's output, which is written once and read
/// often). The loops are C so that an app's debug build runs them at C's speed
/// (docs/decisions/0019-the-own-lz4-loops-in-c.md).
enum LZ4BlockEncoder {
    /// The most a block of `count` bytes can take (the format's bound).
    static func bound(_ count: Int) -> Int { count + count / 255 + 16 }

    /// Compresses `source` into `output` (room for `capacity` bytes); returns the bytes
    /// written, or 0 when the block does not fit (the caller stores it raw). `depth` picks
    /// the chained search with that many candidates per position; nil, the fast search.
    static func compress(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, capacity: Int,
        depth: Int? = nil
    ) -> Int {
        guard capacity > 0 else { return 0 }
        let candidates = depth.map { UInt32(clamping: max($0, 1)) } ?? 0
        let written = logbook_lz4_compress_block(
            source.baseAddress?.assumingMemoryBound(to: UInt8.self), source.count,
            output.assumingMemoryBound(to: UInt8.self), capacity, candidates)
        return Int(truncatingIfNeeded: written)
    }
}
