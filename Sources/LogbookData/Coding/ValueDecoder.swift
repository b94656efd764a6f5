import Foundation
import LogbookCRDT

/// Decodes a `Decodable` value from the engine's `Value`, the inverse of `ValueEncoder`.
/// Numbers convert only exactly (an `Int8` column holding 300 is an error, a `.double`
/// 3.0 reads as the integer 3); a missing or mistyped value is an error naming its path,
/// what was expected and what is there.
enum ValueDecoder {
    /// Decodes `type` from `value`. When `requestedKeys` is given, every key the type's
    /// top-level `init(from:)` asks about is added to it, present or not: that is how the
    /// model layer learns a model's properties, optional ones included.
    static func decode<T: Decodable>(
        _ type: T.Type, from value: Value, requestedKeys: RequestedKeys? = nil
    ) throws -> T {
        try NodeDecoder(value: value, codingPath: [], requestedKeys: requestedKeys).decode(type)
    }

    /// Decodes `type` from the object whose columns are `columns`, as `decode(_:from:
    /// requestedKeys:)` would from `.object` of them; a column they lack is read as `schema`
    /// says (an earlier name, a default).
    static func decode<T: Decodable>(
        _ type: T.Type, columns: ColumnSource, schema: ModelSchema?,
        requestedKeys: RequestedKeys?
    ) throws -> T {
        var decoder = NodeDecoder(value: .object([:]), codingPath: [], requestedKeys: requestedKeys)
        decoder.columns = columns
        decoder.schema = schema
        return try decoder.decode(type)
    }
}

/// The keys a model's `init(from:)` asked for, in the order it asked (a key asked twice is
/// here twice): a list, not a set, so that a decode hashes nothing to note them.
final class RequestedKeys {
    private(set) var names: [String]
    /// Room for a model's keys from the start: growing the list one doubling at a time
    /// cost a few allocations a decode.
    init() {
        names = []
        names.reserveCapacity(16)
    }
    func add(_ name: String) { names.append(name) }
}

/// The `Decoder` over one value.
struct NodeDecoder: Decoder {
    let value: Value
    let codingPath: [any CodingKey]
    /// Set for the top level only.
    let requestedKeys: RequestedKeys?
    /// A top-level object's columns, when they are not `value`'s (a stored record's).
    var columns: ColumnSource?
    /// How a top-level model reads columns its record lacks.
    var schema: ModelSchema?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: Value, codingPath: [any CodingKey], requestedKeys: RequestedKeys? = nil) {
        self.value = value
        self.codingPath = codingPath
        self.requestedKeys = requestedKeys
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let columns {
            return KeyedDecodingContainer(
                KeyedValueContainer<Key>(
                    object: columns, codingPath: codingPath, requestedKeys: requestedKeys,
                    schema: schema))
        }
        guard case .object(let object) = value else {
            throw ValueCodingFailure(
                codingPath: codingPath, expected: "an object", found: value.kindDescription)
        }
        return KeyedDecodingContainer(
            KeyedValueContainer<Key>(
                object: .fields(object), codingPath: codingPath, requestedKeys: requestedKeys))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw ValueCodingFailure(
                codingPath: codingPath, expected: "an array", found: value.kindDescription)
        }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    /// `type` from this decoder's value: a scalar directly, anything else through its own
    /// `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try ScalarDecoding.decode(type, from: value, codingPath: codingPath) {
            return scalar
        }
        return try T(from: self)
    }
}

/// A single value: the decoder's own.
struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decode(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

extension Value {
    /// What a value is, for an error: its case, and a short scalar's value.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let bool): return "the boolean \(bool)"
        case .int(let int): return "the integer \(int)"
        case .unsigned(let unsigned): return "the integer \(unsigned)"
        case .double(let double): return "the number \(double)"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            return "the string \"\(shown)\""
        case .bytes(let bytes): return "\(bytes.count) bytes"
        case .array(let elements): return "an array of \(elements.count)"
        case .object(let object): return "an object of \(object.count) keys"
        }
    }
}
