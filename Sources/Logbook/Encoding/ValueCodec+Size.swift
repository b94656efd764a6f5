import LogbookCRDT
import LogbookStorage

/// Why a value cannot be logged.
public enum ValueViolation: Error, Hashable, Sendable {
    /// Arrays and objects nest deeper than `ChangeLimits.valueDepthMax`.
    case tooDeep
    /// The encoding would exceed the byte limit it was measured against (at least this many).
    case tooLarge(atLeast: Int)
    /// A NaN or infinite double: crdt-lite's JSON forms cannot carry it, so a peer or client
    /// could never be sent the change.
    case nonFiniteDouble
    /// An `unsigned` integer that fits `Int64`: it is spelled `.int`, so that JSON, which
    /// writes both alike, reads back the value that was written (`Value(integer:)`).
    case unsignedInIntRange
}

extension ValueCodec {
    /// The exact size of `value`'s encoding, without encoding it; or why it cannot be logged.
    ///
    /// Walks the value once and stops as soon as the size passes `sizeMax` or the nesting
    /// passes `ChangeLimits.valueDepthMax` (the decoder's bound), so a hostile value costs no
    /// more than the limit. Complexity: O(size of the value).
    ///
    /// Inlined, like `size(of:)`: admission checks every field of every write here, and a
    /// scalar is then checked where it lies instead of being copied to be passed.
    @inline(__always)
    public static func encodedSize(of value: Value, sizeMax: Int = ChangeLimits.valueSizeMax)
        -> Result<Int, ValueViolation>
    {
        let size: Int
        switch value {
        case .double(let double) where !double.isFinite: return .failure(.nonFiniteDouble)
        case .unsigned(let unsigned) where unsigned <= UInt64(Int64.max):
            return .failure(.unsignedInIntRange)
        case .null, .bool, .int, .unsigned, .double, .string: size = self.size(of: value)
        case .bytes, .array, .object: return compositeEncodedSize(of: value, sizeMax: sizeMax)
        }
        return size > sizeMax ? .failure(.tooLarge(atLeast: size)) : .success(size)
    }

    /// `encodedSize(of:sizeMax:)` of bytes, an array or an object: the checked walk.
    @inline(never)
    private static func compositeEncodedSize(of value: Value, sizeMax: Int)
        -> Result<Int, ValueViolation>
    {
        var size = 0
        if let violation = measure(value, depth: 0, size: &size, sizeMax: sizeMax, checked: true) {
            return .failure(violation)
        }
        return size > sizeMax ? .failure(.tooLarge(atLeast: size)) : .success(size)
    }

    /// The exact size of `value`'s encoding, for a value every write path already admitted
    /// (`encodedSize(of:)`): what the encoder reserves before writing it in place.
    @inline(__always)
    public static func size(of value: Value) -> Int {
        // Scalars, nearly every value written, are sized here; the recursive walk (out of
        // line) is for arrays and objects. Inlined with `stringSize`, the record encoder's
        // sizing reads a change's strings and value where they lie: called out of line, it
        // retained and released all three per record (165 instructions a change of the
        // engine's appends, callgrind, session 44).
        switch value {
        case .null, .bool: return 1
        case .int(let int): return 1 + Varint.size(of: zigzag(int))
        case .unsigned, .double: return 9
        case .string(let string): return 1 + stringSize(string)
        case .bytes, .array, .object: return compositeSize(of: value)
        }
    }

    /// `size(of:)` of bytes, an array or an object: the walk, kept out of line.
    @inline(never)
    private static func compositeSize(of value: Value) -> Int {
        var size = 0
        _ = measure(value, depth: 0, size: &size, sizeMax: .max, checked: false)
        return size
    }

    /// Adds the encoded size of `value` (at nesting `depth`) to `size`; when `checked`, stops
    /// at the first bound it breaks.
    private static func measure(
        _ value: Value, depth: Int, size: inout Int, sizeMax: Int, checked: Bool
    ) -> ValueViolation? {
        if checked && depth > ChangeLimits.valueDepthMax { return .tooDeep }
        size += 1  // the tag
        switch value {
        case .null, .bool: break
        case .int(let int): size += Varint.size(of: zigzag(int))
        case .unsigned(let unsigned):
            if checked && unsigned <= UInt64(Int64.max) { return .unsignedInIntRange }
            size += 8
        case .double(let double):
            if checked && !double.isFinite { return .nonFiniteDouble }
            size += 8
        case .string(let string): size += stringSize(string)
        case .bytes(let bytes): size += Varint.size(of: UInt64(bytes.count)) + bytes.count
        case .array(let elements):
            size += Varint.size(of: UInt64(elements.count))
            for element in elements {
                if let violation = measure(
                    element, depth: depth + 1, size: &size, sizeMax: sizeMax, checked: checked)
                {
                    return violation
                }
            }
        case .object(let members):
            size += Varint.size(of: UInt64(members.count))
            for (key, member) in members {
                size += stringSize(key)
                if let violation = measure(
                    member, depth: depth + 1, size: &size, sizeMax: sizeMax, checked: checked)
                {
                    return violation
                }
            }
        }
        return size > sizeMax ? .tooLarge(atLeast: size) : nil
    }

    /// The encoded size of a length-prefixed string.
    @usableFromInline @inline(__always)
    static func stringSize(_ string: String) -> Int {
        let count = string.utf8.count
        return Varint.size(of: UInt64(count)) + count
    }
}
