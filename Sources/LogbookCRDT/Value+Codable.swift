import Foundation

/// Natural JSON: null, true/false, numbers, strings, arrays and objects map to themselves.
///
/// Bytes travel as `{"$bytes": "<base64>"}`; an object whose only key is `$bytes` with a
/// string value therefore decodes as bytes. A JSON number decodes as `.int` when it is an
/// integer that fits Int64 and as `.double` otherwise, so a double with no fractional part
/// (written `1` by JSONEncoder) comes back as `.int`: the binary log format has no such loss.
extension Value: Codable {
    /// The key of the tagged object that carries bytes.
    public static let bytesTag = "$bytes"

    /// Decodes natural JSON as described on the extension.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int64.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([Value].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: Value].self) {
            self = Self.untagged(object)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a JSON value")
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

    private static func untagged(_ object: [String: Value]) -> Value {
        if object.count == 1, case .string(let base64)? = object[bytesTag],
            let data = Data(base64Encoded: base64)
        {
            return .bytes([UInt8](data))
        }
        return .object(object)
    }
}
