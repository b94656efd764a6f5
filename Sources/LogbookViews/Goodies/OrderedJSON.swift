import Foundation
import LogbookCRDT

/// A JSON document that keeps what `Value` and Foundation forget: the order of object keys
/// and whether a number was written as a float (`1.0`) or an integer (`1`).
///
/// The Goodies' semantics depend on both: insertion order is file order, and search
/// serializes content as Python's `json.dumps` would, which prints `1.0` for a float.
public indirect enum OrderedJSON: Hashable, Sendable {
    /// null
    case null
    /// true or false
    case bool(Bool)
    /// A number written without fraction or exponent that fits Int64.
    case int(Int64)
    /// A number written without fraction or exponent from 2^63 through 2^64 − 1.
    case unsigned(UInt64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([OrderedJSON])
    /// An object, its members in document order (a repeated key keeps its first position
    /// and its last value, as a Python dict does).
    case object([(key: String, value: OrderedJSON)])

    /// A `Value` as JSON: object keys sorted (a `Value.object` keeps no order), bytes as the
    /// engine's tagged object.
    public init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .unsigned(let unsigned): self = .unsigned(unsigned)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .bytes(let bytes):
            self = .object([(Value.bytesTag, .string(Data(bytes).base64EncodedString()))])
        case .array(let items): self = .array(items.map(OrderedJSON.init))
        case .object(let object):
            self = .object(
                object.sorted { $0.key < $1.key }.map { ($0.key, OrderedJSON($0.value)) })
        }
    }

    /// The member named `key`, or nil.
    public subscript(key: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string payload, or nil.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// As the engine's `Value` (nested object keys lose their order there).
    public var value: Value {
        switch self {
        case .null: .null
        case .bool(let bool): .bool(bool)
        case .int(let int): .int(int)
        case .unsigned(let unsigned): .unsigned(unsigned)
        case .double(let double): .double(double)
        case .string(let string): .string(string)
        case .array(let items): .array(items.map(\.value))
        case .object(let members):
            .object(Dictionary(members.map { ($0.key, $0.value.value) }) { _, last in last })
        }
    }

    /// Member-wise equality.
    public static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let bool): hasher.combine(bool)
        case .int(let int): hasher.combine(int)
        case .unsigned(let unsigned): hasher.combine(unsigned)
        case .double(let double): hasher.combine(double)
        case .string(let string): hasher.combine(string)
        case .array(let items): hasher.combine(items)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }
}

/// Why a document is not JSON, and where.
public struct OrderedJSONError: Error, Equatable, CustomStringConvertible {
    /// The byte offset of the problem.
    public var offset: Int
    /// What was expected there.
    public var expected: String

    /// A one-line explanation.
    public var description: String { "byte \(offset): expected \(expected)" }
}

extension OrderedJSON {
    /// Parses a whole document (RFC 8259; nesting limited to 512 levels).
    public static func parse(_ bytes: [UInt8]) throws(OrderedJSONError) -> OrderedJSON {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw OrderedJSONError(offset: parser.position, expected: "end of document")
        }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        mutating func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D
                    || bytes[position] == 0x09
            {
                position += 1
            }
        }

        func failure(_ expected: String) -> OrderedJSONError {
            OrderedJSONError(offset: position, expected: expected)
        }

        mutating func literal(_ word: String, _ result: OrderedJSON) throws(OrderedJSONError)
            -> OrderedJSON
        {
            let utf8 = Array(word.utf8)
            guard position + utf8.count <= bytes.count,
                Array(bytes[position..<position + utf8.count]) == utf8
            else { throw failure("'\(word)'") }
            position += utf8.count
            return result
        }

        mutating func value(depth: Int) throws(OrderedJSONError) -> OrderedJSON {
            guard depth < 512 else { throw failure("at most 512 nested levels") }
            guard position < bytes.count else { throw failure("a value") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func object(depth: Int) throws(OrderedJSONError) -> OrderedJSON {
            position += 1
            var members: [(key: String, value: OrderedJSON)] = []
            var positions: [String: Int] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw failure("a quoted key")
                }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw failure("':'")
                }
                position += 1
                skipWhitespace()
                let member = try value(depth: depth + 1)
                if let existing = positions[key] {
                    members[existing].value = member
                } else {
                    positions[key] = members.count
                    members.append((key, member))
                }
                skipWhitespace()
                guard position < bytes.count else { throw failure("',' or '}'") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                } else {
                    throw failure("',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(OrderedJSONError) -> OrderedJSON {
            position += 1
            var items: [OrderedJSON] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw failure("',' or ']'") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                } else {
                    throw failure("',' or ']'")
                }
            }
        }

        mutating func number() throws(OrderedJSONError) -> OrderedJSON {
            let start = position
            var isInteger = true
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            guard position > digitsStart else { throw failure("a value") }
            if bytes[digitsStart] == 0x30, position - digitsStart > 1 {
                throw OrderedJSONError(offset: digitsStart, expected: "no leading zero")
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                let fraction = position
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                    position += 1
                }
                guard position > fraction else { throw failure("a digit after '.'") }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                isInteger = false
                position += 1
                if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
                    position += 1
                }
                let exponent = position
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                    position += 1
                }
                guard position > exponent else { throw failure("a digit in the exponent") }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if isInteger, let int = Int64(text) { return .int(int) }
            if isInteger, let unsigned = UInt64(text) { return .unsigned(unsigned) }
            guard let double = Double(text) else {
                throw OrderedJSONError(offset: start, expected: "a number")
            }
            return .double(double)
        }

        mutating func hexQuad() throws(OrderedJSONError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw failure("four hex digits") }
            var result: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw failure("a hex digit")
                }
                result = result << 4 | UInt32(digit)
                position += 1
            }
            return result
        }

        mutating func string() throws(OrderedJSONError) -> String {
            position += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var runStart = position
            func flushRun(_ end: Int) {
                scalars.append(
                    contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self)
                        .unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flushRun(position)
                    position += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw failure("no raw control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    position += 1
                    continue
                }
                flushRun(position)
                position += 1
                guard position < bytes.count else { throw failure("an escape") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hexQuad()
                    if (0xD800..<0xDC00).contains(code), position + 6 <= bytes.count,
                        bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    {
                        let save = position
                        position += 2
                        let low = try hexQuad()
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = save
                        }
                    }
                    // A lone surrogate cannot be a Swift scalar: U+FFFD, as lenient decoders do.
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default:
                    position -= 1
                    throw failure("a valid escape")
                }
                runStart = position
            }
            throw failure("a closing quote")
        }
    }
}

extension OrderedJSON: ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: OrderedJSON...) { self = .array(elements) }
}
