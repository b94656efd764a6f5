/// The engine's value type: JSON-shaped, plus raw bytes.
///
/// Goodies entity content and SODA rows fit without loss. Equality is structural; `int(1)`
/// and `double(1.0)` are different values (the binary log keeps the distinction; JSON
/// cannot, see `Value+Codable.swift`).
public enum Value: Hashable, Sendable {
    /// JSON null.
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit signed integer.
    case int(Int64)
    /// A 64-bit float.
    case double(Double)
    /// A UTF-8 string.
    case string(String)
    /// Raw bytes; JSON carries them base64-encoded in a tagged object.
    case bytes([UInt8])
    /// An ordered list.
    case array([Value])
    /// A map from string keys.
    case object([String: Value])
}

extension Value {
    /// The string payload, or nil for other cases.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer payload, or nil for other cases.
    public var intValue: Int64? {
        if case .int(let int) = self { return int }
        return nil
    }

    /// The number as a double for `.int` and `.double`, else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }

    /// The boolean payload, or nil for other cases.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }
}
