/// The engine's value type: JSON-shaped, plus raw bytes.
///
/// Goodies entity content and SODA rows fit without loss, and so does every JSON value a
/// crdt-lite client sends: serde_json's three number kinds (`i64`, `u64`, `f64`) map to
/// `int`, `unsigned` and `double`. Equality is structural; `int(1)` and `double(1.0)` are
/// different values, and both the binary log and Logbook's JSON (`ChangeJSON`) keep the
/// distinction: a double is always written with a fraction or an exponent (`1.0`, `1e+20`,
/// `-0.0`).
public enum Value: Hashable, Sendable {
    /// JSON null.
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit signed integer.
    case int(Int64)
    /// An integer from 2^63 through 2^64 − 1, beyond `int`'s range: what crdt-lite's Rust
    /// side holds as a `u64`. Every integer has one spelling: an integer that fits `Int64` is
    /// an `int`, and every write path refuses `unsigned` below 2^63
    /// (`ValueViolation.unsignedInIntRange`).
    case unsigned(UInt64)
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
    /// The deepest nesting of arrays and objects a value may have: a top-level scalar is at
    /// depth 0, the elements of a top-level array at depth 1. The JSON reader and every
    /// write path (`ChangeLimits.valueDepthMax`) hold values to it.
    public static let nestingDepthMax = 64

    /// An unsigned integer in its one spelling: `int` when it fits `Int64`, else `unsigned`.
    public init(integer: UInt64) {
        self = Int64(exactly: integer).map(Value.int) ?? .unsigned(integer)
    }

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

    /// The number as a double (rounded to the nearest for a large integer) for `.int`,
    /// `.unsigned` and `.double`, else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .unsigned(let unsigned): return Double(unsigned)
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
