import Foundation

/// Reads plain crdt-lite JSON changes (`Change<String, String, Value>`, either form) straight
/// from the bytes, for `logbook append`, `POST /changes` and `ChangeJSONLinesReader`.
///
/// It reads only what it can read exactly as `JSONDecoder` and `Change+Codable` would, and
/// answers nil for everything else — malformed JSON, a missing or unknown key, a key given
/// twice, the two forms mixed, a number it would have to round, a string with a lone
/// surrogate, nesting deeper than `depthMax` — so the caller then decodes with
/// `JSONDecoder`, which gives the same change or today's error (line, field, expectation).
/// Foundation's decoder builds a tree of the whole document and a keyed container per
/// change; this reads each value once, in place.
struct ChangeJSONFastReader {
    typealias PlainChange = Change<String, String, Value>

    /// Deeper nesting in a value goes to `JSONDecoder` (which has its own limit).
    static let depthMax = 64

    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// One change that is the whole document, or nil.
    static func change(_ data: some DataProtocol & ContiguousBytes) -> PlainChange? {
        data.withUnsafeBytes { bytes in
            var reader = ChangeJSONFastReader(bytes)
            guard let change = reader.change() else { return nil }
            reader.skipWhitespace()
            return reader.position == bytes.count ? change : nil
        }
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
            guard let (field, form) = Self.field(named: key), fields.take(field, in: form) else {
                return false
            }
            return reader.read(field, into: &fields)
        }
        guard complete else { return nil }
        return fields.change
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

    private static func field(named key: String) -> (ChangeField, ChangeJSONFormat)? {
        for field in ChangeField.allCases {
            if key == field.swiftName { return (field, .swift) }
            if key == field.rustName { return (field, .rust) }
        }
        return nil
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
                guard members[key] == nil, let member = reader.value(depth: depth + 1) else {
                    return false
                }
                members[key] = member
                return true
            }
            return complete ? Value.untagged(members) : failed
        default: return number()
        }
    }

    /// An integer that fits Int64, or a number with a fraction or an exponent that is not a
    /// whole number (`JSONDecoder` may read a whole one as an integer: left to it).
    private mutating func number() -> Value? {
        let start = position
        guard let (isInteger, end) = numberEnd() else { return nil }
        position = end
        let text = bytes[start..<end]
        if isInteger {
            guard let integer = Int64(String(decoding: text, as: UTF8.self)) else { return nil }
            return .int(integer)
        }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite,
            double.rounded(.towardZero) != double
        else { return nil }
        return .double(double)
    }

    /// An unsigned integer written as digits only.
    private mutating func unsigned() -> UInt64? {
        skipWhitespace()
        let start = position
        guard let (isInteger, end) = numberEnd(), isInteger else { return nil }
        position = end
        return UInt64(String(decoding: bytes[start..<end], as: UTF8.self))
    }

    /// Where the JSON number at `position` ends, and whether it is written as an integer;
    /// nil when it is not a JSON number.
    private func numberEnd() -> (isInteger: Bool, end: Int)? {
        var index = position
        func digits() -> Int {
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return nil
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        return (isInteger, index)
    }

    // MARK: Strings

    /// A string, its escapes resolved; nil for invalid UTF-8, a raw control character, a
    /// bad escape or a lone surrogate.
    private mutating func string() -> String? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: bytes[start..<position], as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            guard byte >= 0x20 else { return nil }
            position += 1
        }
        return nil
    }

    /// The rest of a string holding escapes; `start` is just after its opening quote.
    private mutating func escapedString(from start: Int) -> String? {
        var utf8 = [UInt8](bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    utf8.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (after its `\u`), joining a surrogate pair; nil for a lone
    /// surrogate or bad hex.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        guard (0xD800...0xDBFF).contains(high) else {
            return (0xDC00...0xDFFF).contains(high) ? nil : Unicode.Scalar(high)
        }
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
        else { return nil }
        position += 2
        guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[position])).hexDigitValue else {
                return nil
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: Structure

    /// An object: `member` reads each key's value (false stops the reading); false when the
    /// object is malformed or a member failed.
    private mutating func object(_ member: (inout ChangeJSONFastReader, String) -> Bool) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return false }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return true
        }
        while true {
            guard let key = string() else { return false }
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
        guard position + count <= bytes.count, let base = bytes.baseAddress,
            memcmp(base + position, word.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }
}
