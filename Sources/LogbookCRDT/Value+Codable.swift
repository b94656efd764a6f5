import Foundation

/// Natural JSON: null, true/false, numbers, strings, arrays and objects map to themselves.
///
/// Bytes travel as `{"$bytes": "<base64>"}`; an object whose only key is `$bytes` with a
/// string value therefore decodes as bytes. Likewise `{"$null": true}` decodes as null
/// (a change's null value is written so; `Change+Codable.swift`), wherever it appears. A JSON number decodes as `.int` when it is an
/// integer that fits Int64 and as `.double` otherwise, so a double with no fractional part
/// (written `1` by JSONEncoder) comes back as `.int`: the binary log format has no such loss.
/// An integer value from 2^63 to 2^64 − 1 (`9223372036854775808`, also `1e19`) is refused
/// rather than rounded to a double; larger numbers are read as doubles.
extension Value: Codable {
    /// The key of the tagged object that carries bytes.
    public static let bytesTag = "$bytes"
    /// The key of the tagged object `{"$null": true}` that carries a change's null value
    /// (`Change+Codable.swift`: a bare null there means no value to crdt-lite).
    public static let nullTag = "$null"

    /// Decodes natural JSON as described on the extension.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int64.self) {
            self = .int(int)
        } else if let unsigned = try? container.decode(UInt64.self) {
            // An integer over Int64.max would become a double and silently lose digits.
            throw IntegerOutOfRange(value: unsigned)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try Self.decodeIfPresent([Value].self, from: container) {
            self = .array(array)
        } else if let object = try Self.decodeIfPresent([String: Value].self, from: container) {
            self = Self.untagged(object)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a JSON value")
        }
    }

    /// Decodes a container of values, or nil when the JSON is another kind; an integer out of
    /// range inside it is passed on, so it is reported instead of the value being misread.
    private static func decodeIfPresent<T: Decodable>(
        _ type: T.Type, from container: any SingleValueDecodingContainer
    ) throws -> T? {
        do { return try container.decode(type) } catch let error as IntegerOutOfRange {
            throw error
        } catch {
            return nil
        }
    }

    /// Encodes natural JSON as described on the extension; throws for non-finite doubles.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .int(let int): try container.encode(int)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .bytes(let bytes):
            try container.encode([Self.bytesTag: Data(bytes).base64EncodedString()])
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// `text` as JSON when it parses as JSON (`40`, `true`, `"x"`, `[1,2]`), else the text
    /// itself as a string (`name=Lamp` on a command line). An integer JSON holds but `Value`
    /// cannot keep exactly throws rather than becoming another value.
    public static func parsing(jsonOrText text: String) throws(IntegerOutOfRange) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        } catch let error as IntegerOutOfRange {
            throw error
        } catch {
            return .string(text)
        }
    }

    /// An object as `Value` reads it: the `$null` and `$bytes` tags become null and bytes
    /// (shared with `ChangeJSONFastReader`, so both readers untag alike).
    static func untagged(_ object: [String: Value]) -> Value {
        if object == [nullTag: .bool(true)] { return .null }
        if object.count == 1, case .string(let base64)? = object[bytesTag],
            let data = Data(base64Encoded: base64)
        {
            return .bytes([UInt8](data))
        }
        return .object(object)
    }
}

/// A JSON integer from 2^63 to 2^64 − 1: `Value` keeps integers as Int64 and refuses to round
/// one to a double.
public struct IntegerOutOfRange: Error, Hashable, Sendable, CustomStringConvertible {
    /// The integer as written.
    public var value: UInt64

    /// Creates the error for `value`.
    public init(value: UInt64) { self.value = value }

    /// The failure in words.
    public var description: String {
        "the integer \(value) does not fit a signed 64-bit integer (Logbook keeps integers "
            + "exactly); store it as a string"
    }
}
