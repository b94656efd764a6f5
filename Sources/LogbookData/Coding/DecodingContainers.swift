import Foundation
import LogbookCRDT

/// A keyed container over an object. A key that is absent and a key holding `.null` both
/// read as nil (a model's optional property is an absent column); a required key that is
/// absent is an error that says "nothing" was found.
struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: ColumnSource
    let codingPath: [any CodingKey]
    /// Set at a model's top level: every key asked about is recorded here.
    let requestedKeys: RequestedKeys?
    /// Set at a model's top level: how a column the record lacks is read.
    var schema: ModelSchema? = nil

    var allKeys: [Key] { object.names.compactMap { Key(stringValue: $0) } }

    private func lookup(_ key: Key) -> Value? {
        let name = key.stringValue
        requestedKeys?.add(name)
        if let value = object[name] { return value }
        return schema?.fallback(for: name, in: object)
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = lookup(key) else { return true }
        return value == .null
    }

    private func take<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        guard let value = lookup(key) else { throw missing(T.self, key) }
        // Dates and UUIDs as `ValueEncoder` writes them, without their own `init(from:)`:
        // these checks compare type metadata only, and a type found equal is that type.
        if T.self == Date.self, let seconds = value.doubleValue {
            return unsafeBitCast(Date(timeIntervalSinceReferenceDate: seconds), to: T.self)
        }
        if T.self == UUID.self, let string = value.stringValue, let uuid = UUID(uuidString: string)
        {
            return unsafeBitCast(uuid, to: T.self)
        }
        return try NodeDecoder(value: value, codingPath: codingPath + [key]).decode(type)
    }

    /// The failure for a required key that is absent; the coding path is built only here.
    private func missing(_ type: Any.Type, _ key: Key) -> ValueCodingFailure {
        ValueCodingFailure(codingPath: codingPath + [key], expected: "\(type)", found: "nothing")
    }

    /// The failure for a value of the wrong kind.
    private func mismatch(_ key: Key, _ expected: String, _ value: Value) -> ValueCodingFailure {
        ValueCodingFailure(
            codingPath: codingPath + [key], expected: expected, found: value.kindDescription)
    }

    // The common scalars are read without a generic helper or a closure: in this generic
    // container each would ask the runtime for type metadata on every property decoded.

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        guard let value = lookup(key) else { throw missing(type, key) }
        guard case .bool(let bool) = value else { throw mismatch(key, "a boolean", value) }
        return bool
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard let value = lookup(key) else { throw missing(type, key) }
        guard case .string(let string) = value else { throw mismatch(key, "a string", value) }
        return string
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        guard let value = lookup(key) else { throw missing(type, key) }
        guard let double = value.doubleValue else { throw mismatch(key, "a number", value) }
        return double
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try take(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        guard let value = lookup(key) else { throw missing(type, key) }
        if case .int(let int) = value, let fitting = Int(exactly: int) { return fitting }
        guard let fitting = ScalarDecoding.exactly(Int.self, value) else {
            throw mismatch(key, "an integer that fits Int", value)
        }
        return fitting
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try take(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try take(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try take(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        guard let value = lookup(key) else { throw missing(type, key) }
        if case .int(let int) = value { return int }
        guard let fitting = ScalarDecoding.exactly(Int64.self, value) else {
            throw mismatch(key, "an integer that fits Int64", value)
        }
        return fitting
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try take(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try take(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try take(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try take(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try take(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try take(type, key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        throws -> KeyedDecodingContainer<NestedKey>
    {
        try nestedDecoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nestedDecoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(value: object["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(value: lookup(key) ?? .null, codingPath: codingPath + [key])
    }

    private func nestedDecoder(_ key: Key) throws -> NodeDecoder {
        let path = codingPath + [key]
        guard let value = lookup(key) else {
            throw ValueCodingFailure(codingPath: path, expected: "a container", found: "nothing")
        }
        return NodeDecoder(value: value, codingPath: path)
    }
}

/// An unkeyed container over an array, read front to back.
struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [Value]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [Value], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element's decoder; the index moves on only once the element is decoded.
    private func nextDecoder(expecting expected: String) throws -> NodeDecoder {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else {
            throw ValueCodingFailure(
                codingPath: path, expected: expected,
                found: "the end of an array of \(elements.count)")
        }
        return NodeDecoder(value: elements[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard try nextDecoder(expecting: "null").value == .null else { return false }
        currentIndex += 1
        return true
    }

    private mutating func take<T: Decodable>(_ type: T.Type) throws -> T {
        let decoded = try nextDecoder(expecting: "\(T.self)").decode(type)
        currentIndex += 1
        return decoded
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type) }
    mutating func decode(_ type: String.Type) throws -> String { try take(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try take(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try take(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try take(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let container = try nextDecoder(expecting: "an object").container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nextDecoder(expecting: "an array").unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try nextDecoder(expecting: "a value")
        currentIndex += 1
        return decoder
    }
}
