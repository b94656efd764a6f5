import Foundation

/// Writes plain crdt-lite JSON changes (`Change<String, String, Value>`, either form) for
/// `GET /changes`, `GET /snapshot`, JSON lines and every other JSON exit: keys sorted by
/// their bytes, slashes unescaped, strings escaped as `JSONEncoder` escapes them.
///
/// Numbers keep their kind (docs/shipping.md#value-fidelity): an integer as its digits, a
/// double as Swift's shortest text that reads back to the same bits, which always has a
/// fraction or an exponent (`22.0`, `1e+20`, `-0.0`, `5e-324`), so serde_json and this
/// project's reader both read it back as a float. `JSONEncoder` would write 22.0 as `22`,
/// an integer to every reader. `ChangeJSONFastWriterTests` compares the bytes with
/// `JSONEncoder`'s on seeded random changes without doubles, in both forms.
struct ChangeJSONFastWriter {
    typealias PlainChange = Change<String, String, Value>

    /// Appends `change` in `format` to `output`; false (and `output` as it was) when the change
    /// holds a NaN or an infinity, which JSON cannot carry.
    static func append(_ change: PlainChange, format: ChangeJSONFormat, to output: inout [UInt8])
        -> Bool
    {
        if let value = change.value, value.holdsNonFiniteDouble { return false }
        // Keys in the order `.sortedKeys` gives them (by their UTF-8 bytes), in both forms:
        // colName, colVersion, dbVersion, flags, localDbVersion, nodeId, recordId, value.
        let rust = format == .rust
        output.append(UInt8(ascii: "{"))
        if let colName = change.colName {
            key(.colName, format, to: &output)
            string(colName, to: &output)
            output.append(UInt8(ascii: ","))
        } else if rust {
            key(.colName, format, to: &output)
            literal("null,", to: &output)
        }
        key(.colVersion, format, to: &output)
        number(change.colVersion, to: &output)
        // No array of the four: this runs once per change.
        func member(_ field: ChangeField, _ value: UInt64) {
            output.append(UInt8(ascii: ","))
            key(field, format, to: &output)
            number(value, to: &output)
        }
        member(.dbVersion, change.dbVersion)
        member(.flags, UInt64(change.flags))
        member(.localDbVersion, change.localDbVersion)
        member(.nodeId, change.nodeId)
        output.append(UInt8(ascii: ","))
        key(.recordId, format, to: &output)
        string(change.recordId, to: &output)
        switch change.value {
        case .none:
            if rust { literal(",\"value\":null", to: &output) }
        case .some(.null):
            // A bare null would mean "no value" to crdt-lite: the tag says null.
            literal(",\"value\":{\"$null\":true}", to: &output)
        case .some(let value):
            literal(",\"value\":", to: &output)
            Self.value(value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    private static func value(_ value: Value, to output: inout [UInt8]) {
        switch value {
        case .null: literal("null", to: &output)
        case .bool(let bool): literal(bool ? "true" : "false", to: &output)
        case .int(let int):
            if int < 0 { output.append(UInt8(ascii: "-")) }
            number(int.magnitude, to: &output)
        case .unsigned(let unsigned): number(unsigned, to: &output)
        case .double(let double):
            // Finite (`append` checked). `description` is the shortest round-tripping text
            // and always holds a `.` or an `e`, so it never reads back as an integer.
            output.append(contentsOf: double.description.utf8)
        case .string(let string): Self.string(string, to: &output)
        case .bytes(let bytes):
            literal("{\"$bytes\":\"", to: &output)
            output.append(contentsOf: Data(bytes).base64EncodedData())
            literal("\"}", to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.value(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                string(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                Self.value(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// `"name":`, the field's key in `format` (`ChangeField`'s spelling, the one the readers
    /// match).
    private static func key(
        _ field: ChangeField, _ format: ChangeJSONFormat, to output: inout [UInt8]
    ) {
        output.append(UInt8(ascii: "\""))
        literal(format == .swift ? field.swiftName : field.rustName, to: &output)
        literal("\":", to: &output)
    }

    private static func literal(_ text: StaticString, to output: inout [UInt8]) {
        output.append(
            contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func number(_ number: UInt64, to output: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var remaining = number
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: remaining % 10) &+ 0x30
                remaining /= 10
            } while remaining > 0
            output.append(contentsOf: buffer[start...])
        }
    }

    /// A JSON string as `JSONEncoder` escapes it: quote, backslash and control characters
    /// (`\b \f \n \r \t`, others as `\u00XX`); slashes and everything else as they are.
    private static func string(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var plainStart = 0
            // An index loop, not `enumerated()`: a debug build makes each (offset, element)
            // pair through the runtime's tuple metadata, 40 times slower on a 200 KB value.
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    output.append(
                        contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
                    plainStart = index + 1
                    escape(byte, to: &output)
                }
                index += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func escape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            literal("u00", to: &output)
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
    }
}

/// A lowercase hex digit for a value below 16, as `JSONEncoder` writes `\u00XX`.
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
}

extension Value {
    /// Whether a NaN or an infinity is anywhere in it.
    var holdsNonFiniteDouble: Bool {
        switch self {
        case .double(let double): !double.isFinite
        case .array(let elements): elements.contains { $0.holdsNonFiniteDouble }
        case .object(let members): members.values.contains { $0.holdsNonFiniteDouble }
        default: false
        }
    }
}
