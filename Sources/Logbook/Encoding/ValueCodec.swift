import LogbookCRDT
import LogbookStorage

/// Compact binary form of a `Value`: a tag byte, then the payload.
///
/// `0 null | 1 false | 2 true | 3 int (zigzag varint) | 4 double (8 bytes LE) | 5 string |
/// 6 bytes (varint count, bytes) | 7 array (varint count, values) | 8 object (varint count,
/// then string key and value per entry, keys in ascending order so encoding is canonical) |
/// 9 unsigned (8 bytes LE, above Int64.max: a smaller one is an int, and reads as malformed)`.
/// Nesting is bounded by `ChangeLimits.valueDepthMax`, the bound every write path checks.
public enum ValueCodec {
    /// The deepest nesting of arrays and objects decoded: the writers' bound.
    public static let depthMax = ChangeLimits.valueDepthMax

    enum Tag: UInt8 {
        case null = 0, isFalse, isTrue, int, double, string, bytes, array, object, unsigned
    }

    /// Appends the encoding of `value`.
    public static func append(_ value: Value, to bytes: inout [UInt8]) {
        bytes.append(byteCount: size(of: value)) { write(value, to: $0) }
    }

    /// Writes the encoding of `value` at `pointer`, which has room for `size(of: value)`
    /// bytes; returns that many.
    public static func write(_ value: Value, to pointer: UnsafeMutableRawPointer) -> Int {
        func tag(_ tag: Tag) -> Int {
            pointer.storeBytes(of: tag.rawValue, as: UInt8.self)
            return 1
        }
        switch value {
        case .null: return tag(.null)
        case .bool(let flag): return tag(flag ? .isTrue : .isFalse)
        case .int(let int): return tag(.int) + Varint.write(zigzag(int), to: pointer + 1)
        case .unsigned(let unsigned):
            (pointer + 1).storeBytes(of: unsigned.littleEndian, as: UInt64.self)
            return tag(.unsigned) + 8
        case .double(let double):
            (pointer + 1).storeBytes(of: double.bitPattern.littleEndian, as: UInt64.self)
            return tag(.double) + 8
        case .string(let string): return tag(.string) + writeString(string, to: pointer + 1)
        case .bytes(let data):
            var written = tag(.bytes) + Varint.write(UInt64(data.count), to: pointer + 1)
            data.withUnsafeBytes { written += $0.writeBytes(to: pointer + written) }
            return written
        case .array(let elements):
            var written = tag(.array) + Varint.write(UInt64(elements.count), to: pointer + 1)
            for element in elements { written += write(element, to: pointer + written) }
            return written
        case .object(let members):
            var written = tag(.object) + Varint.write(UInt64(members.count), to: pointer + 1)
            for key in members.keys.sorted() {
                written += writeString(key, to: pointer + written)
                if let member = members[key] { written += write(member, to: pointer + written) }
            }
            return written
        }
    }

    /// Appends a length-prefixed UTF-8 string.
    @inlinable
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(byteCount: stringSize(string)) { writeString(string, to: $0) }
    }

    /// Writes a length-prefixed UTF-8 string at `pointer`, which has room for
    /// `stringSize(string)` bytes; returns that many.
    @inlinable
    public static func writeString(_ string: String, to pointer: UnsafeMutableRawPointer) -> Int {
        func write(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
            let written = Varint.write(UInt64(utf8.count), to: pointer)
            return written + UnsafeRawBufferPointer(utf8).writeBytes(to: pointer + written)
        }
        // A native string lends its bytes; only a bridged or lazy one needs a copy made
        // contiguous (`withUTF8` on a copy, which retains it even when it is native).
        if let written = string.utf8.withContiguousStorageIfAvailable(write) { return written }
        var copy = string
        return copy.withUTF8(write)
    }

    /// Signed integers as zigzag: small magnitudes, either sign, take few varint bytes.
    static func zigzag(_ int: Int64) -> UInt64 { UInt64(bitPattern: (int << 1) ^ (int >> 63)) }

    /// Reads a length-prefixed UTF-8 string; nil if it runs past the input, is longer than
    /// `sizeMax` bytes or is not UTF-8.
    @inlinable
    public static func readString(
        _ bytes: UnsafeRawBufferPointer, at position: inout Int, sizeMax: Int = .max
    )
        -> String?
    {
        guard let slice = readStringBytes(bytes, at: &position, sizeMax: sizeMax) else {
            return nil
        }
        return string(of: slice)
    }

    /// Reads a length-prefixed string's bytes, unchecked; nil if they run past the input or
    /// are more than `sizeMax`.
    @inlinable
    static func readStringBytes(
        _ bytes: UnsafeRawBufferPointer, at position: inout Int, sizeMax: Int
    ) -> UnsafeRawBufferPointer? {
        guard let length = Varint.read(bytes, at: &position),
            length <= UInt64(bytes.count - position), length <= UInt64(sizeMax)
        else {
            return nil
        }
        let end = position + Int(truncatingIfNeeded: length)
        defer { position = end }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<end])
    }

    /// The string of `bytes`; nil if they are not UTF-8.
    @inlinable
    static func string(of bytes: UnsafeRawBufferPointer) -> String? {
        // ASCII needs no validation, and record ids and column names nearly always are.
        if isASCII(bytes) { return String(asciiBytes: bytes) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether every byte is below 0x80: read a word at a time, the last word overlapping
    /// the one before it rather than a byte at a time, since most ids are 8 to 16 bytes.
    /// Decoding and admission (`CanonicalText`) both test with it.
    @inlinable
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        if count >= 8 {
            var combined = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            var position = 0
            while position + 8 < count {
                combined |= bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                position += 8
            }
            return combined & 0x8080_8080_8080_8080 == 0
        }
        if count >= 4 {
            let combined =
                bytes.loadUnaligned(as: UInt32.self)
                | bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            return combined & 0x8080_8080 == 0
        }
        var combined: UInt8 = 0
        for byte in bytes { combined |= byte }
        return combined < 0x80
    }

    /// Reads one value; nil when the input is malformed or nests deeper than `depthMax`.
    public static func read(_ bytes: UnsafeRawBufferPointer, at position: inout Int, depth: Int)
        -> Value?
    {
        guard depth <= depthMax, position < bytes.count, let tag = Tag(rawValue: bytes[position])
        else { return nil }
        position += 1
        switch tag {
        case .null: return .null
        case .isFalse: return .bool(false)
        case .isTrue: return .bool(true)
        case .int:
            guard let zigzag = Varint.read(bytes, at: &position) else { return nil }
            return .int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
        case .double:
            guard position + 8 <= bytes.count else { return nil }
            let bits = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
            position += 8
            return .double(Double(bitPattern: bits))
        case .unsigned:
            guard position + 8 <= bytes.count else { return nil }
            let unsigned =
                bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
            position += 8
            // One spelling per integer: one that fits Int64 is only ever an int.
            guard unsigned > UInt64(Int64.max) else { return nil }
            return .unsigned(unsigned)
        case .string:
            return readString(bytes, at: &position).map(Value.string)
        case .bytes:
            guard let count = Varint.read(bytes, at: &position),
                count <= UInt64(bytes.count - position)
            else {
                return nil
            }
            let data = [UInt8](bytes[position..<(position + Int(truncatingIfNeeded: count))])
            position += Int(truncatingIfNeeded: count)
            return .bytes(data)
        case .array:
            guard let count = Varint.read(bytes, at: &position),
                count <= UInt64(bytes.count - position)
            else {
                return nil
            }
            var elements: [Value] = []
            elements.reserveCapacity(Int(truncatingIfNeeded: count))
            for _ in 0..<count {
                guard let element = read(bytes, at: &position, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        case .object:
            guard let count = Varint.read(bytes, at: &position),
                count <= UInt64(bytes.count - position)
            else {
                return nil
            }
            var members: [String: Value] = [:]
            members.reserveCapacity(Int(truncatingIfNeeded: count))
            var previousKey: String?
            for _ in 0..<count {
                guard let key = readString(bytes, at: &position),
                    let member = read(bytes, at: &position, depth: depth + 1)
                else { return nil }
                if let previousKey, key <= previousKey { return nil }
                members[key] = member
                previousKey = key
            }
            return .object(members)
        }
    }
}
