import Logbook
import LogbookCRDT

/// What the value-fidelity tests and the `crdt-lite-json` fuzz target compare values with.
///
/// `Value`'s `==` takes `-0.0` and `0.0` for the same double (it compares with `Double.==`),
/// so a test of exact round trips compares the values' canonical encodings instead; and
/// `JSONDecoder`, which loses the kind of a whole double, is compared with Logbook's reader
/// through what Foundation makes of a value.
public enum ValueFidelity {
    /// Whether two values are the same to the bit: kind, payload, a double's sign and bits.
    public static func isExactlyEqual(_ first: Value?, _ second: Value?) -> Bool {
        encoded(first) == encoded(second)
    }

    /// Whether two changes are the same, their values compared to the bit.
    public static func isExactlyEqual(
        _ first: Change<String, String, Value>?, _ second: Change<String, String, Value>?
    ) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return first == second && isExactlyEqual(first.value, second.value)
    }

    /// What is wrong with `changes` against the values `expected` holds by record id: each
    /// change whose record it does not hold, or whose value is not that one to the bit, and
    /// each expected record no change carries, in words. Empty when they agree exactly.
    public static func mismatches(
        _ changes: [Change<String, String, Value>], expected: [String: Value]
    ) -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        for change in changes {
            seen.insert(change.recordId)
            guard let value = expected[change.recordId] else {
                problems.append("\(change.recordId): not written")
                continue
            }
            if !isExactlyEqual(change.value, value) {
                problems.append(
                    "\(change.recordId): \(value) came back as \(String(describing: change.value))")
            }
        }
        for id in expected.keys.sorted() where !seen.contains(id) {
            problems.append("\(id): missing")
        }
        return problems
    }

    /// `value` as `JSONDecoder` reads its JSON text: a whole double that fits Int64 (`-0.0`
    /// among them) becomes an integer, one from 2^63 to 2^64 − 1 an `unsigned`; nothing
    /// else changes.
    public static func asFoundationReads(_ value: Value) -> Value {
        switch value {
        case .double(let double):
            if let int = Int64(exactly: double) { return .int(int) }
            if let unsigned = UInt64(exactly: double) { return Value(integer: unsigned) }
            return value
        case .array(let elements): return .array(elements.map(asFoundationReads))
        case .object(let members): return .object(members.mapValues(asFoundationReads))
        default: return value
        }
    }

    /// `change` with its value as `JSONDecoder` reads it (`asFoundationReads`).
    public static func asFoundationReads(_ change: Change<String, String, Value>)
        -> Change<String, String, Value>
    {
        var change = change
        change.value = change.value.map(asFoundationReads)
        return change
    }

    private static func encoded(_ value: Value?) -> [UInt8]? {
        guard let value else { return nil }
        var bytes: [UInt8] = []
        ValueCodec.append(value, to: &bytes)
        return bytes
    }
}
