import Foundation

/// Natural JSON through `Codable`: null, true/false, numbers, strings, arrays and objects map
/// to themselves.
///
/// Bytes travel as `{"$bytes": "<base64>"}`; an object whose only key is `$bytes` with a
/// string value therefore decodes as bytes. Likewise `{"$null": true}` decodes as null
/// (a change's null value is written so; `Change+Codable.swift`), wherever it appears.
///
/// Foundation's coders cannot keep every number's kind: `JSONEncoder` writes the double
/// 22.0 as `22`, and `JSONDecoder` reads `1.0` as an integer when asked for one. So this
/// conformance, for a `Value` inside an app's own `Codable` types, decodes a number as `.int`
/// when it is an integer that fits Int64, as `.unsigned` from 2^63 to 2^64 − 1, and as
/// `.double` otherwise. Logbook's own JSON (`ChangeJSON`, `Value.parsing(jsonOrText:)`, every
/// HTTP body, `append`, `export`) does not go through it: it reads and writes the number's
/// text itself and keeps every kind exactly (docs/shipping.md#value-fidelity).
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
            self = .unsigned(unsigned)
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

    /// Decodes a container of values, or nil when the JSON is another kind.
    private static func decodeIfPresent<T: Decodable>(
        _ type: T.Type, from container: any SingleValueDecodingContainer
    ) throws -> T? {
        try? container.decode(type)
    }

    /// Encodes natural JSON as described on the extension; throws for non-finite doubles.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .int(let int): try container.encode(int)
        case .unsigned(let unsigned): try container.encode(unsigned)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .bytes(let bytes):
            try container.encode([Self.bytesTag: Data(bytes).base64EncodedString()])
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// `text` as JSON when it parses as JSON (`40`, `2.0`, `true`, `"x"`, `[1,2]`), else the
    /// text itself as a string (`name=Lamp` on a command line). Numbers keep their kind as
    /// `ChangeJSON` reads them: `2.0` is a double, `2` an integer, 2^64 − 1 an `unsigned`.
    /// Throws `ChangeJSONError` (`.refused`) for JSON that is not read rather than read
    /// inexactly (nesting deeper than `nestingDepthMax`, a number beyond a double's range).
    public static func parsing(jsonOrText text: String) throws(ChangeJSONError) -> Value {
        switch ChangeJSONFastReader.value(document: Data(text.utf8)) {
        case .success(let value): return value
        case .failure(let refusal):
            guard let reason = refusal.reason else { return .string(text) }
            throw ChangeJSONError(code: .refused, message: reason)
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
