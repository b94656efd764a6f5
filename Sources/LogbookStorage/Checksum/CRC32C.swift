import CCRC32C

/// CRC32C (Castagnoli) over bytes; hardware-accelerated where the CPU allows.
public enum CRC32C {
    /// The checksum of `bytes`, or the continuation of `crc` over them.
    @inlinable
    public static func checksum(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0)
        -> UInt32
    {
        logbook_crc32c_extend(crc, bytes.baseAddress, bytes.count)
    }

    /// The checksum of an array of bytes.
    public static func checksum(_ bytes: [UInt8], extending crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, extending: crc) }
    }
}
