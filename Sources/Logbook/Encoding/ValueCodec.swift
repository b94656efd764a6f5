import LogbookCRDT
import LogbookStorage

/// Compact binary form of a `Value`: a tag byte, then the payload.
///
/// `0 null | 1 false | 2 true | 3 int (zigzag varint) | 4 double (8 bytes LE) | 5 string |
/// 6 bytes (varint count, bytes) | 7 array (varint count, values) | 8 object (varint count,
/// then string key and value per entry, keys in ascending order so encoding is canonical)`.
/// Nesting is bounded by `ChangeLimits.valueDepthMax`, the bound every write path checks.
public enum ValueCodec {
    /// The deepest nesting of arrays and objects decoded: the writers' bound.
    public static let depthMax = ChangeLimits.valueDepthMax

    enum Tag: UInt8 {
        case null = 0, isFalse, isTrue, int, double, string, bytes, array, object
    }

    /// Appends the encoding of `value`.
    public static func append(_ value: Value, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(Tag.null.rawValue)
        case .bool(let flag): bytes.append(flag ? Tag.isTrue.rawValue : Tag.isFalse.rawValue)
        case .int(let int):
            bytes.append(Tag.int.rawValue)
            Varint.append(UInt64(bitPattern: (int << 1) ^ (int >> 63)), to: &bytes)
        case .double(let double):
            bytes.append(Tag.double.rawValue)
            withUnsafeBytes(of: double.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case .string(let string):
            bytes.append(Tag.string.rawValue)
            appendString(string, to: &bytes)
        case .bytes(let data):
            bytes.append(Tag.bytes.rawValue)
            Varint.append(UInt64(data.count), to: &bytes)
            bytes.append(contentsOf: data)
        case .array(let elements):
            bytes.append(Tag.array.rawValue)
            Varint.append(UInt64(elements.count), to: &bytes)
            for element in elements { append(element, to: &bytes) }
        case .object(let members):
            bytes.append(Tag.object.rawValue)
            Varint.append(UInt64(members.count), to: &bytes)
            for key in members.keys.sorted() {
                appendString(key, to: &bytes)
                if let member = members[key] { append(member, to: &bytes) }
            }
        }
    }

    /// Appends a length-prefixed UTF-8 string.
    @inlinable
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var copy = string
        copy.withUTF8 { utf8 in
            Varint.append(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Reads a length-prefixed UTF-8 string; nil if it runs past the input, is longer than
    /// `sizeMax` bytes or is not UTF-8.
    @inlinable
    public static func readString(
        _ bytes: UnsafeRawBufferPointer, at position: inout Int, sizeMax: Int = .max
    )
        -> String?
    {
        guard let length = Varint.read(bytes, at: &position),
            length <= UInt64(bytes.count - position), length <= UInt64(sizeMax)
        else {
            return nil
        }
        let end = position + Int(length)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[position..<end])
        position = end
        // ASCII needs no validation, and record ids and column names nearly always are.
        if isASCII(slice) { return String(decoding: slice, as: UTF8.self) }
        return String(validating: slice, as: UTF8.self)
    }

    @inlinable
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
        case .string:
            return readString(bytes, at: &position).map(Value.string)
        case .bytes:
            guard let count = Varint.read(bytes, at: &position),
                count <= UInt64(bytes.count - position)
            else {
                return nil
            }
            let data = [UInt8](bytes[position..<(position + Int(count))])
            position += Int(count)
            return .bytes(data)
        case .array:
            guard let count = Varint.read(bytes, at: &position),
                count <= UInt64(bytes.count - position)
            else {
                return nil
            }
            var elements: [Value] = []
            elements.reserveCapacity(Int(count))
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
            members.reserveCapacity(Int(count))
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
