import Foundation
import LogbookCRDT

/// Encodes an `Encodable` value into the engine's `Value`: keyed containers become
/// objects, unkeyed ones arrays, and scalars their `Value` case. Integers take their one
/// spelling (`Value(integer:)`), `Data` is `.bytes`, `URL` and `Decimal` are strings (their
/// exact spelling), `Date` is its own Codable form (seconds since 2001, a `.double`, which
/// reads back bit for bit). A NaN or infinite number is refused with its path: crdt-lite's
/// JSON cannot carry it.
enum ValueEncoder {
    static func encode<T: Encodable>(_ value: T) throws -> Value {
        let node = EncodingNode()
        try node.encode(value, codingPath: [])
        return node.resolved()
    }

    /// Encodes a model: straight through its own `encode(to:)`, since a model is never one
    /// of the scalars `encode(_:)` looks for first.
    static func encode<M: LogbookModel>(model: M) throws -> Value {
        let node = EncodingNode()
        try model.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.resolved()
    }
}

/// Why a value could not be encoded or decoded, and where.
struct ValueCodingFailure: Error {
    var codingPath: [any CodingKey]
    var expected: String
    var found: String

    /// The path as `column.key[2].key`.
    var path: String { ValueCodingFailure.spell(codingPath) }

    static func spell(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

/// One value being encoded: a scalar, or the children of a keyed or unkeyed container.
final class EncodingNode {
    private var scalar: Value?
    private var keyed: [String: EncodingNode]?
    /// A keyed node's scalar properties, set without a node each (the common case: a
    /// model's columns).
    private var keyedValues: [String: Value]?
    private var unkeyed: [EncodingNode]?

    func resolved() -> Value {
        if keyed != nil || keyedValues != nil {
            var object = keyedValues ?? [:]
            for (key, node) in keyed ?? [:] { object[key] = node.resolved() }
            return .object(object)
        }
        if let unkeyed { return .array(unkeyed.map { $0.resolved() }) }
        return scalar ?? .object([:])
    }

    func set(_ value: Value) { scalar = value }

    /// Marks the node a keyed container, so that one with no keys is an empty object.
    func beginKeyed() { if keyed == nil { keyed = [:] } }

    /// Marks the node an unkeyed container, so that one with no elements is an empty array.
    func beginUnkeyed() { if unkeyed == nil { unkeyed = [] } }

    func child(forKey key: String) -> EncodingNode {
        beginKeyed()
        keyedValues?[key] = nil
        let node = EncodingNode()
        keyed?[key] = node
        return node
    }

    /// Sets the scalar `value` for `key` of a keyed node.
    func set(_ value: Value, forKey key: String) {
        beginKeyed()
        keyed?[key] = nil
        if keyedValues == nil {
            keyedValues = [key: value]
        } else {
            keyedValues?[key] = value
        }
    }

    func appendedChild() -> EncodingNode {
        beginUnkeyed()
        let node = EncodingNode()
        unkeyed?.append(node)
        return node
    }

    var childCount: Int { unkeyed?.count ?? 0 }

    func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        if let scalar = try Self.scalar(value, codingPath) {
            set(scalar)
            return
        }
        if T.self == Data.self, let data = value as? Data {
            set(.bytes(Array(data)))
        } else if T.self == URL.self, let url = value as? URL {
            set(.string(url.absoluteString))
        } else if T.self == Decimal.self, let decimal = value as? Decimal {
            set(.string(decimal.description))
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    /// A Swift scalar's `Value`; nil for any other type. Each scalar is caught here, before
    /// its own `encode(to:)`, which would come back to this node through a container.
    private static func scalar<T>(_ value: T, _ codingPath: [any CodingKey]) throws -> Value? {
        // Type metadata compared, not a dynamic cast tried per scalar type: a struct that is
        // none of them (every model, every nested value) cost fourteen failed casts.
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Double.self {
            return try finite(unsafeBitCast(value, to: Double.self), codingPath)
        }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Int64.self { return .int(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Float.self {
            return try finite(Double(unsafeBitCast(value, to: Float.self)), codingPath)
        }
        if T.self == Int8.self { return .int(Int64(unsafeBitCast(value, to: Int8.self))) }
        if T.self == Int16.self { return .int(Int64(unsafeBitCast(value, to: Int16.self))) }
        if T.self == Int32.self { return .int(Int64(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt.self {
            return Value(integer: UInt64(unsafeBitCast(value, to: UInt.self)))
        }
        if T.self == UInt8.self {
            return Value(integer: UInt64(unsafeBitCast(value, to: UInt8.self)))
        }
        if T.self == UInt16.self {
            return Value(integer: UInt64(unsafeBitCast(value, to: UInt16.self)))
        }
        if T.self == UInt32.self {
            return Value(integer: UInt64(unsafeBitCast(value, to: UInt32.self)))
        }
        if T.self == UInt64.self { return Value(integer: unsafeBitCast(value, to: UInt64.self)) }
        return nil
    }

    static func finite(_ double: Double, _ codingPath: [any CodingKey]) throws -> Value {
        guard double.isFinite else {
            throw ValueCodingFailure(
                codingPath: codingPath, expected: "a finite number", found: "\(double)")
        }
        return .double(double)
    }
}

/// The `Encoder` over one node.
struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}
