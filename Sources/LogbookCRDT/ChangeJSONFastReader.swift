import Foundation

/// Reads plain crdt-lite JSON changes (`Change<String, String, Value>`, either form) straight
/// from the bytes, for `logbook append`, `POST /changes` and `ChangeJSONLinesReader`.
///
/// It reads only what it can read exactly as `JSONDecoder` and `Change+Codable` would, and
/// answers nil for everything else — malformed JSON, a missing or unknown key, a key given
/// twice or spelled with escapes, the two forms mixed, a number it would have to round, a
/// string with a lone surrogate, nesting deeper than `depthMax` — so the caller then decodes
/// with `JSONDecoder`, which gives the same change or today's error (line, field,
/// expectation). Foundation's decoder builds a tree of the whole document and a keyed
/// container per change; this reads each value once, in place: keys are matched as bytes,
/// integers are accumulated from their digits, and a string becomes a `String` only when it
/// is a value.
struct ChangeJSONFastReader {
    typealias PlainChange = Change<String, String, Value>

    /// Deeper nesting in a value goes to `JSONDecoder` (which has its own limit).
    static let depthMax = 64

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes.assumingMemoryBound(to: UInt8.self)
    }

    /// One change that is the whole of `bytes`, or nil.
    static func change(_ bytes: UnsafeRawBufferPointer) -> PlainChange? {
        var reader = ChangeJSONFastReader(bytes)
        guard let change = reader.change() else { return nil }
        reader.skipWhitespace()
        return reader.position == bytes.count ? change : nil
    }

    /// One change that is the whole document, or nil.
    static func change(_ data: some DataProtocol & ContiguousBytes) -> PlainChange? {
        data.withUnsafeBytes { change($0) }
    }

    /// A document that is one array of changes, or nil.
    static func changes(_ data: some DataProtocol & ContiguousBytes) -> [PlainChange]? {
        data.withUnsafeBytes { bytes in
            var reader = ChangeJSONFastReader(bytes)
            guard let changes = reader.array(of: { $0.change() }) else { return nil }
            reader.skipWhitespace()
            return reader.position == bytes.count ? changes : nil
        }
    }

    // MARK: A change

    private mutating func change() -> PlainChange? {
        var fields = ChangeFields()
        let complete = object { reader, key in
            guard !key.hasEscapes,
                let (field, form) = ChangeField.named(reader.slice(key.bytes)),
                fields.take(field, in: form)
            else { return false }
            return reader.read(field, into: &fields)
        }
        guard complete else { return nil }
        return fields.takeChange()
    }

    private mutating func read(_ field: ChangeField, into fields: inout ChangeFields) -> Bool {
        switch field {
        case .recordId:
            fields.recordId = string()
            return fields.recordId != nil
        case .colName:
            if literal("null") { return true }
            fields.colName = string()
            return fields.colName != nil
        case .value:
            // A bare null: no value in the Rust form; refused in the Swift form (by
            // JSONDecoder, with its message).
            if literal("null") { return fields.form == .rust }
            fields.value = value(depth: 0)
            return fields.value != nil
        case .colVersion, .dbVersion, .nodeId, .localDbVersion, .flags:
            guard let number = unsigned() else { return false }
            fields.set(field, number)
            return true
        }
    }

    // MARK: Values

    private mutating func value(depth: Int) -> Value? {
        guard depth < Self.depthMax else { return nil }
        skipWhitespace()
        guard position < bytes.count else { return nil }
        // `Value` is ExpressibleByNilLiteral (as `.null`): every "no value" here is spelled
        // `Optional.none`, so a failed read can never turn into a JSON null.
        let failed = Value?.none
        switch bytes[position] {
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "t"): return literal("true") ? Value.bool(true) : failed
        case UInt8(ascii: "f"): return literal("false") ? Value.bool(false) : failed
        case UInt8(ascii: "n"): return literal("null") ? Value.null : failed
        case UInt8(ascii: "["): return array { $0.value(depth: depth + 1) }.map(Value.array)
        case UInt8(ascii: "{"):
            var members: [String: Value] = [:]
            let complete = object { reader, key in
                guard let name = reader.string(key), members[name] == nil,
                    let member = reader.value(depth: depth + 1)
                else { return false }
                members[name] = member
                return true
            }
            return complete ? Value.untagged(members) : failed
        default: return number()
        }
    }

    // MARK: Structure

    /// An object: `member` reads each key's value (false stops the reading); false when the
    /// object is malformed or a member failed.
    private mutating func object(_ member: (inout ChangeJSONFastReader, StringSpan) -> Bool)
        -> Bool
    {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return false }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return true
        }
        while true {
            guard let key = stringSpan() else { return false }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            guard member(&self, key), let closed = closedOrComma(UInt8(ascii: "}")) else {
                return false
            }
            if closed { return true }
        }
    }

    /// An array whose elements `element` reads; nil when malformed or an element failed.
    private mutating func array<Element>(of element: (inout ChangeJSONFastReader) -> Element?)
        -> [Element]?
    {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
        position += 1
        var elements: [Element] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        while true {
            guard let next = element(&self) else { return nil }
            elements.append(next)
            guard let closed = closedOrComma(UInt8(ascii: "]")) else { return nil }
            if closed { return elements }
        }
    }

    /// After a member or element: true at `closing` (consumed), false at a comma (consumed),
    /// nil for anything else.
    private mutating func closedOrComma(_ closing: UInt8) -> Bool? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        let separator = bytes[position]
        position += 1
        if separator == closing { return true }
        return separator == UInt8(ascii: ",") ? false : nil
    }

    /// Reads `word` (true, false, null) when it is next.
    private mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let count = word.utf8CodeUnitCount
        // The first byte rules out most calls (a colName or value that is not null) cheaply.
        guard position + count <= bytes.count, bytes[position] == word.utf8Start.pointee,
            let base = bytes.baseAddress, memcmp(base + position, word.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The bytes in `range`, as a buffer of their own.
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }
}
