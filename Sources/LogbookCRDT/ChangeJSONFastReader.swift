import Foundation

/// Reads plain crdt-lite JSON changes (`Change<String, String, Value>`, either form) straight
/// from the bytes, for `logbook append`, `POST /changes`, `ChangeJSONLinesReader` and
/// `Value.parsing(jsonOrText:)`: the one reader of plain changes and values.
///
/// It keeps every value exactly: numbers are read from their text by serde_json's rules
/// (`number()`), so `1.0` stays a double and 2^64 − 1 an integer, which `JSONDecoder`
/// cannot do. Keys it does not know are skipped, as serde and `Codable` skip them. It
/// answers nil for everything it refuses, setting `refusal` when the input is valid JSON
/// it will not read (a field given twice, keys of both forms, nesting deeper than
/// `Value.nestingDepthMax`, a number beyond a double's range); for malformed input the
/// caller asks `JSONDecoder` for its message (line, field, expectation). Foundation's
/// decoder builds a tree of the whole document and a keyed container per change; this
/// reads each value once, in place: keys are matched as bytes, integers are accumulated
/// from their digits, and a string becomes a `String` only when it is a value.
struct ChangeJSONFastReader {
    typealias PlainChange = Change<String, String, Value>

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Why valid JSON was refused, for the caller's error; nil when the input was malformed
    /// or read.
    var refusal: String?

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes.assumingMemoryBound(to: UInt8.self)
    }

    /// One change that is the whole of `bytes`, or why valid JSON was refused (nil for
    /// malformed input).
    static func change(_ bytes: UnsafeRawBufferPointer) -> Result<PlainChange, Refusal> {
        var reader = ChangeJSONFastReader(bytes)
        return reader.whole { $0.change() }
    }

    /// One change that is the whole document, or why it was refused.
    static func change(_ data: some DataProtocol & ContiguousBytes) -> Result<PlainChange, Refusal>
    {
        data.withUnsafeBytes { change($0) }
    }

    /// A document that is one array of changes, or why it was refused.
    static func changes(_ data: some DataProtocol & ContiguousBytes)
        -> Result<[PlainChange], Refusal>
    {
        data.withUnsafeBytes { bytes in
            var reader = ChangeJSONFastReader(bytes)
            return reader.whole { $0.array(of: { $0.change() }) }
        }
    }

    /// A document that is one JSON value (surrounding whitespace allowed), or why not.
    static func value(document data: some DataProtocol & ContiguousBytes)
        -> Result<Value, Refusal>
    {
        data.withUnsafeBytes { bytes in
            var reader = ChangeJSONFastReader(bytes)
            return reader.whole { $0.value(depth: 0) }
        }
    }

    /// Why a document was not read: `reason` when it is valid JSON refused on purpose, nil
    /// when it is malformed (the caller asks `JSONDecoder` for the details).
    struct Refusal: Error {
        let reason: String?
    }

    /// What `read` makes of the whole input, with nothing but whitespace after it.
    private mutating func whole<T>(_ read: (inout ChangeJSONFastReader) -> T?) -> Result<T, Refusal>
    {
        guard let result = read(&self) else { return .failure(Refusal(reason: refusal)) }
        skipWhitespace()
        guard position == bytes.count else { return .failure(Refusal(reason: nil)) }
        return .success(result)
    }

    // MARK: A change

    private mutating func change() -> PlainChange? {
        var fields = ChangeFields()
        let complete = object { reader, key in
            guard let named = reader.field(named: key) else {
                // A key that names no field: skipped, as serde and `Codable` skip it, once
                // it is known to be text (valid UTF-8, good escapes).
                return reader.string(key) != nil && reader.value(depth: 0) != nil
            }
            guard fields.take(named.field, in: named.form) else {
                reader.refusal =
                    fields.form == named.form || named.field.isSpelledAlike
                    ? "the field \(named.field.key(in: named.form).stringValue) is given twice"
                    : "the change mixes the Swift form's keys (recordId) with the Rust "
                        + "form's (record_id)"
                return false
            }
            return reader.read(named.field, into: &fields)
        }
        guard complete else { return nil }
        if fields.hasBareNullValue && fields.form == .swift {
            refusal = ChangeJSONError.bareNullInSwiftForm
            return nil
        }
        return fields.takeChange()
    }

    /// The change field a key names, in its form; a key spelled with escapes is matched by
    /// its text.
    private func field(named key: StringSpan) -> (field: ChangeField, form: ChangeJSONFormat)? {
        guard key.hasEscapes else { return ChangeField.named(slice(key.bytes)) }
        guard var text = string(key) else { return nil }
        return text.withUTF8 { ChangeField.named($0) }
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
            // A bare null: no value in the Rust form, refused as ambiguous in the Swift form;
            // which form, the keys after it may tell (`takeChange`).
            if literal("null") {
                fields.hasBareNullValue = true
                return true
            }
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
        guard depth <= Value.nestingDepthMax else {
            refusal =
                "a value nests deeper than \(Value.nestingDepthMax) levels "
                + "(Value.nestingDepthMax, ChangeLimits.valueDepthMax)"
            return nil
        }
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
                guard let name = reader.string(key) else { return false }
                guard members[name] == nil else {
                    reader.refusal = "an object in a value gives a key twice"
                    return false
                }
                guard let member = reader.value(depth: depth + 1) else { return false }
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
