/// Unsigned LEB128: seven bits per byte, low bits first, high bit set on all but the last.
public enum Varint {
    /// The most bytes a UInt64 takes.
    public static let sizeMax = 10

    /// Appends `value` to `bytes`.
    @inlinable
    public static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    /// The bytes `value` takes: one per started group of seven significant bits, at least one.
    @inlinable
    public static func size(of value: UInt64) -> Int {
        max(1, (UInt64.bitWidth - value.leadingZeroBitCount + 6) / 7)
    }

    /// Writes `value` at `pointer`, which has room for `size(of: value)` bytes; returns that
    /// many. The in-place form for encoders that size a whole record first (`[UInt8].append(
    /// byteCount:writtenBy:)`): one capacity check per record instead of one per byte.
    ///
    /// A value under 128 (a node id, flags, a small column version) is stored inline; a
    /// longer one goes through the loop, out of line.
    @inlinable @inline(__always)
    public static func write(_ value: UInt64, to pointer: UnsafeMutableRawPointer) -> Int {
        if value < 0x80 {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            return 1
        }
        return writeLong(value, to: pointer)
    }

    /// `write(_:to:)` of a value of two bytes or more.
    @inlinable @inline(never)
    static func writeLong(_ value: UInt64, to pointer: UnsafeMutableRawPointer) -> Int {
        var remaining = value
        var written = 0
        while remaining >= 0x80 {
            pointer.storeBytes(
                of: UInt8(truncatingIfNeeded: remaining) | 0x80, toByteOffset: written,
                as: UInt8.self)
            remaining >>= 7
            written += 1
        }
        pointer.storeBytes(of: UInt8(remaining), toByteOffset: written, as: UInt8.self)
        return written + 1
    }

    /// Reads a varint at `position`, advancing it. Nil when the input ends inside the varint
    /// or the value does not fit 64 bits.
    @inlinable
    public static func read(_ bytes: UnsafeRawBufferPointer, at position: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }
}
