import Foundation
import LogbookCRDT

/// A keyed container: an object, one child node per key. Every scalar goes through
/// `EncodingNode.encode`, which knows each one's `Value`.
struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    init(node: EncodingNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
        node.beginKeyed()
    }

    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        // The scalars a model's columns mostly are go in without a node, a coding path or
        // a dynamic cast: these checks compare type metadata only.
        if T.self == Date.self {
            let date = unsafeBitCast(value, to: Date.self)
            return node.set(.double(date.timeIntervalSinceReferenceDate), forKey: key.stringValue)
        }
        if T.self == UUID.self {
            let uuid = unsafeBitCast(value, to: UUID.self)
            return node.set(.string(uuid.uuidString), forKey: key.stringValue)
        }
        try node.child(forKey: key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    private func set(_ value: Value, _ key: Key) { node.set(value, forKey: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        // The coding path is built only for the error.
        set(
            value.isFinite ? .double(value) : try EncodingNode.finite(value, codingPath + [key]),
            key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(
            KeyedNodeContainer<NestedKey>(
                node: node.child(forKey: key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedNodeContainer(
            node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

/// An unkeyed container: an array, one child node per element.
struct UnkeyedNodeContainer: UnkeyedEncodingContainer, ScalarForwarding {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.childCount }

    init(node: EncodingNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
        node.beginUnkeyed()
    }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }

    mutating func encodeNil() throws { node.appendedChild().set(.null) }
    func encodeAny<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try node.appendedChild().encode(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = nextPath
        return KeyedEncodingContainer(
            KeyedNodeContainer<NestedKey>(node: node.appendedChild(), codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return UnkeyedNodeContainer(node: node.appendedChild(), codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return NodeEncoder(node: node.appendedChild(), codingPath: path)
    }
}

/// A single value, encoded into the node itself.
struct SingleNodeContainer: SingleValueEncodingContainer, ScalarForwarding {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    func encodeAny<T: Encodable>(_ value: T) throws {
        try node.encode(value, codingPath: codingPath)
    }
}

/// An array element's place in a coding path.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { intValue.map(String.init) ?? "" }

    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) {
        guard let index = Int(stringValue) else { return nil }
        intValue = index
    }
}

/// A container whose every typed `encode` is `encodeAny`: the unkeyed and the single-value
/// containers' requirements are the same list, written once here.
protocol ScalarForwarding {
    func encodeAny<T: Encodable>(_ value: T) throws
}

extension ScalarForwarding {
    mutating func encode(_ value: Bool) throws { try encodeAny(value) }
    mutating func encode(_ value: String) throws { try encodeAny(value) }
    mutating func encode(_ value: Double) throws { try encodeAny(value) }
    mutating func encode(_ value: Float) throws { try encodeAny(value) }
    mutating func encode(_ value: Int) throws { try encodeAny(value) }
    mutating func encode(_ value: Int8) throws { try encodeAny(value) }
    mutating func encode(_ value: Int16) throws { try encodeAny(value) }
    mutating func encode(_ value: Int32) throws { try encodeAny(value) }
    mutating func encode(_ value: Int64) throws { try encodeAny(value) }
    mutating func encode(_ value: UInt) throws { try encodeAny(value) }
    mutating func encode(_ value: UInt8) throws { try encodeAny(value) }
    mutating func encode(_ value: UInt16) throws { try encodeAny(value) }
    mutating func encode(_ value: UInt32) throws { try encodeAny(value) }
    mutating func encode(_ value: UInt64) throws { try encodeAny(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeAny(value) }
}
