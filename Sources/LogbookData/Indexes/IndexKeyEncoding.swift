import Foundation
import Logbook
import LogbookCRDT

/// The bytes an index sorts by: each key column's value in an order-preserving encoding,
/// then the record id, so that comparing two keys byte by byte orders them by their first
/// column, then the second, and so on, with the record id last (every key is distinct).
///
/// Per column: a tag byte, then the value. Absent (the column is missing or deleted) sorts
/// first, then null, false, true, integers (numerically, `.unsigned` above `Int64.max`
/// after every `.int`), doubles (numerically, -0 before +0), strings (by UTF-8 bytes),
/// bytes, and arrays or objects last (in no order of meaning, but always the same one).
/// Strings and bytes end with 00 00 and escape a 00 byte as 00 FF, so a shorter string
/// sorts before a longer one it begins, and "a prefix of" is a byte range.
enum IndexKeyEncoding {
    enum Tag: UInt8 {
        case absent = 0x01, null, `false`, `true`, integer, double, string, bytes, composite
    }

    /// A byte that sorts after every tag: a key prefix followed by it bounds every key that
    /// begins with the prefix.
    static let afterEveryTag: UInt8 = 0xFF

    /// The sign bit of a 64-bit pattern.
    private static let signBit: UInt64 = 1 << 63

    /// Appends `value`'s encoding (nil: absent).
    static func append(_ value: Value?, to key: inout [UInt8]) {
        guard let value else { return key.append(Tag.absent.rawValue) }
        switch value {
        case .null: key.append(Tag.null.rawValue)
        case .bool(let bool): key.append(bool ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let int):
            key.append(Tag.integer.rawValue)
            key.append(0)  // every .int before every .unsigned above Int64.max
            appendBigEndian(UInt64(bitPattern: int) ^ signBit, to: &key)
        case .unsigned(let unsigned):
            key.append(Tag.integer.rawValue)
            if let int = Int64(exactly: unsigned) {
                key.append(0)
                appendBigEndian(UInt64(bitPattern: int) ^ signBit, to: &key)
            } else {
                key.append(1)
                appendBigEndian(unsigned, to: &key)
            }
        case .double(let double):
            key.append(Tag.double.rawValue)
            // IEEE 754 bits made to sort as the numbers do: negative numbers flipped
            // whole, positive ones with the sign bit set.
            let bits = double.bitPattern
            appendBigEndian(bits >> 63 == 1 ? ~bits : bits | signBit, to: &key)
        case .string(let string):
            key.append(Tag.string.rawValue)
            appendEscaped(string.utf8, to: &key, terminated: true)
        case .bytes(let bytes):
            key.append(Tag.bytes.rawValue)
            appendEscaped(bytes, to: &key, terminated: true)
        case .array, .object:
            key.append(Tag.composite.rawValue)
            var encoded: [UInt8] = []
            ValueCodec.append(value, to: &encoded)
            appendEscaped(encoded, to: &key, terminated: true)
        }
    }

    /// The key of a record with these key column values.
    static func key(_ values: [Value?], recordId: String) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(16 * values.count + recordId.utf8.count + 2)
        for value in values { append(value, to: &key) }
        appendEscaped(recordId.utf8, to: &key, terminated: true)
        return key
    }

    /// The bytes every key whose column holds a string beginning with `prefix` begins
    /// with, after the columns before it.
    static func appendStringPrefix(_ prefix: String, to key: inout [UInt8]) {
        key.append(Tag.string.rawValue)
        appendEscaped(prefix.utf8, to: &key, terminated: false)
    }

    private static func appendBigEndian(_ number: UInt64, to key: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            key.append(UInt8(truncatingIfNeeded: number >> UInt64(shift)))
        }
    }

    private static func appendEscaped(
        _ bytes: some Sequence<UInt8>, to key: inout [UInt8], terminated: Bool
    ) {
        for byte in bytes {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        if terminated { key.append(contentsOf: [0, 0]) }
    }

    /// Byte-by-byte order: the first differing byte decides, and a key that is a prefix
    /// of another sorts first.
    static func compare(_ left: [UInt8], _ right: [UInt8]) -> Int {
        left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 ? -1 : 1 }
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
    }
}
