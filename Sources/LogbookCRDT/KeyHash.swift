/// A fast seeded 64-bit hash of byte strings, for the hot paths that hash every record id:
/// `ReplicaState`'s id table and compaction's pass 1 (Swift's `Hasher` is SipHash, several
/// times slower on short keys).
/// Eight bytes at a time, multiply-xorshift mixing and a murmur3 finalizer; the seed is
/// random per process, so nothing hashed here is stable or leaves memory.
package struct KeyHash: Sendable {
    package let seed: UInt64

    /// A hash with a random seed.
    package init() {
        var generator = SystemRandomNumberGenerator()
        seed = generator.next()
    }

    /// A hash with `seed` (tests).
    package init(seed: UInt64) { self.seed = seed }

    /// The hash of a string's UTF-8 bytes (a record id's). `ReplicaState` hashes through
    /// its storage's `keyHash` field with this rather than through a method of the storage,
    /// which copied the whole storage struct on every local write.
    @inline(__always)
    package func hash(_ string: String) -> UInt64 {
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The hash of `bytes`, starting from `start` (chain two strings by passing the first's
    /// hash); the length is mixed in, so ("ab", "c") and ("a", "bc") differ.
    @inlinable @inline(__always)
    package func hash(_ bytes: UnsafeRawBufferPointer, from start: UInt64 = 0) -> UInt64 {
        var state = (seed ^ start) &+ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var position = 0
        while position + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 31
            position += 8
        }
        if position < bytes.count {
            let tail = Self.tail(bytes, from: position)
            state = (state ^ tail) &* 0x94D0_49BB_1331_11EB
            state ^= state >> 29
        }
        state ^= state >> 33
        state &*= 0xFF51_AFD7_ED55_8CCD
        state ^= state >> 33
        state &*= 0xC4CE_B9FE_1A85_EC53
        state ^= state >> 33
        return state
    }

    /// The 1 to 7 bytes from `position` to the end as one word, read in at most two loads
    /// instead of byte by byte: the last eight bytes when the string has them (overlapping
    /// bytes already mixed is harmless, the length is mixed in), else two overlapping
    /// four-byte loads, else three single bytes.
    @inlinable @inline(__always)
    static func tail(_ bytes: UnsafeRawBufferPointer, from position: Int) -> UInt64 {
        let count = bytes.count
        if count >= 8 {
            return bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        let remaining = count - position
        if remaining >= 4 {
            let low = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let high = bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            return UInt64(low) | UInt64(high) << 32
        }
        return UInt64(bytes[position]) | UInt64(bytes[position + remaining / 2]) << 8
            | UInt64(bytes[count - 1]) << 16
    }
}
