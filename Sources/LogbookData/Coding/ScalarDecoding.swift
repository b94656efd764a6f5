import Foundation
import LogbookCRDT

/// The scalars `ValueEncoder` writes directly, read back: each converts only exactly.
enum ScalarDecoding {
    /// `type` from `value` when `type` is a scalar; nil when it is not one.
    static func decode<T>(_ type: T.Type, from value: Value, codingPath: [any CodingKey]) throws
        -> T?
    {
        func fail(_ expected: String) -> ValueCodingFailure {
            ValueCodingFailure(
                codingPath: codingPath, expected: expected, found: value.kindDescription)
        }
        switch type {
        case is Bool.Type:
            guard let bool = value.boolValue else { throw fail("a boolean") }
            return bool as? T
        case is String.Type:
            guard let string = value.stringValue else { throw fail("a string") }
            return string as? T
        case is Double.Type:
            guard let double = value.doubleValue else { throw fail("a number") }
            return double as? T
        case is Float.Type:
            guard let double = value.doubleValue else { throw fail("a number") }
            return Float(double) as? T
        case is Data.Type:
            guard case .bytes(let bytes) = value else { throw fail("bytes") }
            return Data(bytes) as? T
        case is URL.Type:
            guard let string = value.stringValue, let url = URL(string: string) else {
                throw fail("a URL string")
            }
            return url as? T
        case is Decimal.Type:
            guard let string = value.stringValue, let decimal = Decimal(string: string) else {
                throw fail("a decimal string")
            }
            return decimal as? T
        default:
            return try integer(type, from: value, fail: fail)
        }
    }

    private static func integer<T>(
        _ type: T.Type, from value: Value, fail: (String) -> ValueCodingFailure
    ) throws -> T? {
        switch type {
        case is Int.Type: return try exactly(Int.self, value, fail) as? T
        case is Int8.Type: return try exactly(Int8.self, value, fail) as? T
        case is Int16.Type: return try exactly(Int16.self, value, fail) as? T
        case is Int32.Type: return try exactly(Int32.self, value, fail) as? T
        case is Int64.Type: return try exactly(Int64.self, value, fail) as? T
        case is UInt.Type: return try exactly(UInt.self, value, fail) as? T
        case is UInt8.Type: return try exactly(UInt8.self, value, fail) as? T
        case is UInt16.Type: return try exactly(UInt16.self, value, fail) as? T
        case is UInt32.Type: return try exactly(UInt32.self, value, fail) as? T
        case is UInt64.Type: return try exactly(UInt64.self, value, fail) as? T
        default: return nil
        }
    }

    private static func exactly<I: FixedWidthInteger>(
        _ type: I.Type, _ value: Value, _ fail: (String) -> ValueCodingFailure
    ) throws -> I {
        guard let converted = exactly(type, value) else {
            throw fail("an integer that fits \(I.self)")
        }
        return converted
    }

    /// `value` as an `I` when it is an integer (or an integral double) that fits.
    static func exactly<I: FixedWidthInteger>(_ type: I.Type, _ value: Value) -> I? {
        switch value {
        case .int(let int): return I(exactly: int)
        case .unsigned(let unsigned): return I(exactly: unsigned)
        case .double(let double): return I(exactly: double)
        default: return nil
        }
    }
}
