/// XXH32, the 32-bit xxHash the LZ4 frame format checksums with (its header byte, and the
/// optional block and content checksums). Written from the published algorithm: four lanes
/// over 16-byte stripes, then the tail by 4 and 1 bytes, then the avalanche.
public enum XXHash32 {
    static let prime1: UInt32 = 0x9E37_79B1
    static let prime2: UInt32 = 0x85EB_CA77
    static let prime3: UInt32 = 0xC2B2_AE3D
    static let prime4: UInt32 = 0x27D4_EB2F
    static let prime5: UInt32 = 0x1656_67B1

    /// The hash of `bytes` with `seed`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        let count = bytes.count
        var position = 0
        var hash: UInt32
        if count >= 16 {
            var lanes = (
                seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1
            )
            while position + 16 <= count {
                lanes.0 = round(lanes.0, word(bytes, position))
                lanes.1 = round(lanes.1, word(bytes, position + 4))
                lanes.2 = round(lanes.2, word(bytes, position + 8))
                lanes.3 = round(lanes.3, word(bytes, position + 12))
                position += 16
            }
            hash =
                rotate(lanes.0, 1) &+ rotate(lanes.1, 7) &+ rotate(lanes.2, 12)
                &+ rotate(lanes.3, 18)
        } else {
            hash = seed &+ prime5
        }
        hash = hash &+ UInt32(truncatingIfNeeded: count)
        while position + 4 <= count {
            hash = rotate(hash &+ word(bytes, position) &* prime3, 17) &* prime4
            position += 4
        }
        while position < count {
            hash = rotate(hash &+ UInt32(bytes[position]) &* prime5, 11) &* prime1
            position += 1
        }
        hash ^= hash >> 15
        hash = hash &* prime2
        hash ^= hash >> 13
        hash = hash &* prime3
        hash ^= hash >> 16
        return hash
    }

    /// The hash of an array of bytes.
    public static func hash(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    @inline(__always)
    private static func round(_ accumulator: UInt32, _ lane: UInt32) -> UInt32 {
        rotate(accumulator &+ lane &* prime2, 13) &* prime1
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ position: Int) -> UInt32 {
        bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
    }
}
