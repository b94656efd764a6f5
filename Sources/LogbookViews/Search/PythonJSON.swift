import Foundation
import LogbookCRDT

/// Text as Python's `json.dumps(obj)` writes it with default arguments: `", "` and `": "`
/// separators, non-ASCII escaped as lower-case `\uXXXX` (surrogate pairs beyond the BMP),
/// floats as `repr` prints them (`1.0`, `1e-05`, `NaN`, `Infinity`).
///
/// Object members come in the order given. A `Value.object` keeps no order, so nested
/// objects are written with sorted keys; Python would use their insertion order (see
/// docs/views.md). Bytes, which JSON lacks, are written as the engine's tagged object.
public enum PythonJSON {
    /// A top-level object from ordered members.
    public static func dumps(members: [(String, Value)]) -> String {
        dumps(.object(members.map { (key: $0.0, value: OrderedJSON($0.1)) }))
    }

    /// One value.
    public static func dumps(_ value: Value) -> String {
        dumps(OrderedJSON(value))
    }

    /// One ordered document.
    public static func dumps(_ json: OrderedJSON) -> String {
        var text = ""
        write(json, into: &text)
        return text
    }

    private static func write(_ json: OrderedJSON, into text: inout String) {
        switch json {
        case .null: text += "null"
        case .bool(let bool): text += bool ? "true" : "false"
        case .int(let int): text += String(int)
        case .unsigned(let unsigned): text += String(unsigned)
        case .double(let double): text += pythonRepr(double)
        case .string(let string): writeString(string, into: &text)
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += ", " }
                write(item, into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += ", " }
                writeString(member.key, into: &text)
                text += ": "
                write(member.value, into: &text)
            }
            text += "}"
        }
    }

    /// Python's `repr(float)`: the shortest round-tripping digits, like Swift's description,
    /// with Python's names for the non-finite values.
    static func pythonRepr(_ double: Double) -> String {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
        return double.description
    }

    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    private static func writeString(_ string: String, into text: inout String) {
        var scalars = String.UnicodeScalarView()
        scalars.append("\"")
        func escape(_ unit: UInt32) {
            scalars.append(contentsOf: "\\u".unicodeScalars)
            for shift in stride(from: 12, through: 0, by: -4) {
                scalars.append(hexDigits[Int((unit >> UInt32(shift)) & 0xF)])
            }
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": scalars.append(contentsOf: "\\\"".unicodeScalars)
            case "\\": scalars.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": scalars.append(contentsOf: "\\n".unicodeScalars)
            case "\r": scalars.append(contentsOf: "\\r".unicodeScalars)
            case "\t": scalars.append(contentsOf: "\\t".unicodeScalars)
            case "\u{08}": scalars.append(contentsOf: "\\b".unicodeScalars)
            case "\u{0C}": scalars.append(contentsOf: "\\f".unicodeScalars)
            default:
                let value = scalar.value
                if value < 0x20 || value > 0x7E {
                    if value > 0xFFFF {
                        let offset = value - 0x10000
                        escape(0xD800 + (offset >> 10))
                        escape(0xDC00 + (offset & 0x3FF))
                    } else {
                        escape(value)
                    }
                } else {
                    scalars.append(scalar)
                }
            }
        }
        scalars.append("\"")
        // Through a String, not `text.unicodeScalars`: mutating the view of a long string
        // copies it each time (quadratic when writing a large document).
        text += String(scalars)
    }
}
