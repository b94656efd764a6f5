import LogbookCRDT
import LogbookStorage

/// Appends the pieces of a view's checkpoint state: numbers, strings, optional strings and
/// values, in the view's own order (`CheckpointReader` reads them back in the same order).
public struct CheckpointWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// A variable-length unsigned number.
    public mutating func write(_ number: UInt64) { Varint.append(number, to: &bytes) }

    /// A length-prefixed UTF-8 string.
    public mutating func write(_ string: String) { ValueCodec.appendString(string, to: &bytes) }

    /// A string or its absence.
    public mutating func write(_ string: String?) {
        if let string {
            bytes.append(1)
            write(string)
        } else {
            bytes.append(0)
        }
    }

    /// A value in the log's own encoding.
    public mutating func write(_ value: Value) { ValueCodec.append(value, to: &bytes) }

    /// A value or its absence.
    public mutating func write(_ value: Value?) {
        if let value {
            bytes.append(1)
            write(value)
        } else {
            bytes.append(0)
        }
    }
}

/// Reads what `CheckpointWriter` wrote, refusing anything truncated or malformed.
public struct CheckpointReader {
    /// The bytes are not a checkpoint state of the expected shape.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        /// Where reading stopped.
        public var position: Int
        /// What was expected there.
        public var expected: String

        /// A one-line explanation.
        public var description: String { "checkpoint state byte \(position): expected \(expected)" }
    }

    private let bytes: [UInt8]
    private var position = 0

    /// A reader over `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The refusal of the bytes read so far, for a view's own checks of what it read.
    public func malformed(expected: String) -> Malformed {
        Malformed(position: position, expected: expected)
    }

    /// Throws unless every byte was read (trailing bytes mean a different shape).
    public func expectEnd() throws(Malformed) {
        guard position == bytes.count else {
            throw Malformed(position: position, expected: "the end of the state")
        }
    }

    /// A number written by `write(_: UInt64)`.
    public mutating func readNumber() throws(Malformed) -> UInt64 {
        let start = position
        let number = bytes.withUnsafeBytes { Varint.read($0, at: &position) }
        guard let number else { throw Malformed(position: start, expected: "a number") }
        return number
    }

    /// A count, refused when larger than the bytes left could hold.
    public mutating func readCount() throws(Malformed) -> Int {
        let start = position
        let count = try readNumber()
        guard count <= UInt64(bytes.count - position) else {
            throw Malformed(position: start, expected: "a count within the remaining bytes")
        }
        return Int(truncatingIfNeeded: count)
    }

    /// A string written by `write(_: String)`.
    public mutating func readString() throws(Malformed) -> String {
        let start = position
        let string = bytes.withUnsafeBytes { ValueCodec.readString($0, at: &position) }
        guard let string else { throw Malformed(position: start, expected: "a string") }
        return string
    }

    /// A string written by `write(_: String)` that is not yet in `seen`, and joins it. A
    /// view whose state holds each id once reads ids with it: a state naming one twice was
    /// not written by the view, and is refused.
    public mutating func readDistinctString(_ seen: inout Set<String>) throws(Malformed) -> String {
        try readDistinct(&seen, expected: "a string not read before") {
            (reader: inout Self) throws(Malformed) in try reader.readString()
        }
    }

    /// A number written by `write(_: UInt64)` that is not yet in `seen`, and joins it (as
    /// `readDistinctString(_:)`, for numbers such as a view's insertion order).
    public mutating func readDistinctNumber(_ seen: inout Set<UInt64>) throws(Malformed) -> UInt64 {
        try readDistinct(&seen, expected: "a number not read before") {
            (reader: inout Self) throws(Malformed) in try reader.readNumber()
        }
    }

    /// What `read` reads, refused where it started when `seen` holds it already.
    private mutating func readDistinct<Element: Hashable>(
        _ seen: inout Set<Element>, expected: String,
        _ read: (inout Self) throws(Malformed) -> Element
    ) throws(Malformed) -> Element {
        let start = position
        let element = try read(&self)
        guard seen.insert(element).inserted else {
            throw Malformed(position: start, expected: expected)
        }
        return element
    }

    /// A string written by `write(_: String?)`.
    public mutating func readOptionalString() throws(Malformed) -> String? {
        try readPresence() ? try readString() : nil
    }

    /// A value written by `write(_: Value?)`.
    public mutating func readOptionalValue() throws(Malformed) -> Value? {
        // Not a `? :` with `nil`: `Value` is nil-literal expressible, so that nil would be
        // `Value.null`, present.
        guard try readPresence() else { return Optional<Value>.none }
        return try readValue()
    }

    /// The flag before an optional: 1 present, 0 absent, anything else refused.
    private mutating func readPresence() throws(Malformed) -> Bool {
        guard position < bytes.count else {
            throw Malformed(position: position, expected: "a flag")
        }
        let flag = bytes[position]
        position += 1
        switch flag {
        case 0: return false
        case 1: return true
        default: throw Malformed(position: position - 1, expected: "0 or 1")
        }
    }

    /// A value written by `write(_: Value)`.
    public mutating func readValue() throws(Malformed) -> Value {
        let start = position
        let value = bytes.withUnsafeBytes {
            ValueCodec.read($0, at: &position, depth: 0)
        }
        guard let value else { throw Malformed(position: start, expected: "a value") }
        return value
    }
}
