/// Compresses one LZ4 block, written in this project from the published block format for
/// platforms without a system liblz4 (`LZ4Blocks`). Its output is any valid block, not
/// liblz4's bytes: liblz4, `lz4 -dc` and `LZ4BlockDecoder` read it.
///
/// The format's end rules hold: the last 5 bytes are literals, and no match starts in the
/// last 12. Two searches: `fast` finds matches through one hash table of recent positions,
/// skipping ahead faster the longer it finds none (as LZ4's own fast mode does); `chained`
/// keeps every position in hash chains over the 64 KiB window and takes the longest match
/// of up to `depth` candidates (for compaction's output, which is written once and read
/// often).
enum LZ4BlockEncoder {
    /// A block shorter than this is all literals: a match needs 4 bytes and 12 after it.
    static let inputMinForMatch = 13
    static let windowSize = 65_535

    /// The most a block of `count` bytes can take (the format's bound).
    static func bound(_ count: Int) -> Int { count + count / 255 + 16 }

    /// Compresses `source` into `output` (room for `capacity` bytes); returns the bytes
    /// written, or 0 when the block does not fit (the caller stores it raw).
    static func compress(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, capacity: Int,
        depth: Int? = nil
    ) -> Int {
        var writer = LZ4SequenceWriter(output: output, capacity: capacity)
        guard let input = source.baseAddress else {
            writer.write(literalsFrom: output, 0, 0)
            return writer.fits ? writer.position : 0
        }
        var anchor = 0
        if source.count >= inputMinForMatch {
            if let depth {
                anchor = chained(input, count: source.count, depth: max(depth, 1), into: &writer)
            } else {
                anchor = fast(input, count: source.count, into: &writer)
            }
        }
        writer.write(literalsFrom: input, anchor, source.count)
        return writer.fits ? writer.position : 0
    }

    static let hashLog = 12

    @inline(__always)
    static func word(_ input: UnsafeRawPointer, _ position: Int) -> UInt32 {
        input.loadUnaligned(fromByteOffset: position, as: UInt32.self)
    }

    @inline(__always)
    static func hash(_ word: UInt32, log: Int) -> Int {
        Int((word &* 2_654_435_761) >> UInt32(32 - log))
    }

    /// How far the bytes at `position` and `candidate` agree, up to `limit` (the position
    /// past which a match may not run), eight bytes at a time.
    @inline(__always)
    static func matchEnd(
        _ input: UnsafeRawPointer, from position: Int, candidate: Int, limit: Int
    ) -> Int {
        var end = position
        var other = candidate
        while end + 8 <= limit {
            let difference =
                input.loadUnaligned(fromByteOffset: end, as: UInt64.self)
                ^ input.loadUnaligned(fromByteOffset: other, as: UInt64.self)
            if difference != 0 {
                return end + UInt64(littleEndian: difference).trailingZeroBitCount / 8
            }
            end += 8
            other += 8
        }
        while end < limit
            && input.load(fromByteOffset: end, as: UInt8.self)
                == input.load(fromByteOffset: other, as: UInt8.self)
        {
            end += 1
            other += 1
        }
        return end
    }

    /// The fast search; returns where the trailing literals start.
    private static func fast(
        _ input: UnsafeRawPointer, count: Int, into writer: inout LZ4SequenceWriter
    ) -> Int {
        let matchStartLimit = count - 12
        let matchEndLimit = count - 5
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1 << hashLog) { table in
            table.initialize(repeating: 0)
            var anchor = 0
            var position = 1
            table[hash(word(input, 0), log: hashLog)] = 0
            while position < matchStartLimit {
                var misses = 1 << 6
                var candidate = 0
                var found = false
                while position < matchStartLimit {
                    let current = word(input, position)
                    let slot = hash(current, log: hashLog)
                    candidate = Int(table[slot])
                    table[slot] = Int32(truncatingIfNeeded: position)
                    let distance = position - candidate
                    if distance > 0 && distance <= windowSize && word(input, candidate) == current {
                        found = true
                        break
                    }
                    position += misses >> 6
                    misses += 1
                }
                guard found else { break }
                while position > anchor && candidate > 0
                    && input.load(fromByteOffset: position - 1, as: UInt8.self)
                        == input.load(fromByteOffset: candidate - 1, as: UInt8.self)
                {
                    position -= 1
                    candidate -= 1
                }
                let end = matchEnd(
                    input, from: position + 4, candidate: candidate + 4, limit: matchEndLimit)
                writer.write(
                    literalsFrom: input, anchor, position, offset: position - candidate,
                    matchLength: end - position)
                guard writer.fits else { return count }
                position = end
                anchor = end
                if position < matchStartLimit {
                    table[hash(word(input, position - 2), log: hashLog)] = Int32(
                        truncatingIfNeeded: position - 2)
                }
            }
            return anchor
        }
    }
}
