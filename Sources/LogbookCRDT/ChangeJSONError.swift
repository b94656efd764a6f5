/// A change could not be read from or written as crdt-lite JSON.
///
/// Carries where (1-based line of a JSON-lines input, when there is one), which field (a
/// dotted path such as `value.rooms.0`, when known) and what was expected. No payload bytes.
public struct ChangeJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The input is not JSON at all.
        public static let malformedJSON = Code(name: "malformedJSON")
        /// A required field is absent.
        public static let missingField = Code(name: "missingField")
        /// A field holds the wrong kind of value.
        public static let wrongType = Code(name: "wrongType")
        /// The change cannot be written as JSON (e.g. a non-finite double).
        public static let unencodable = Code(name: "unencodable")
        /// Valid JSON that is refused rather than read inexactly: a field given twice, keys
        /// of both forms, nesting deeper than `Value.nestingDepthMax`, a number beyond a
        /// double's range, a bare null value in the Swift form.
        public static let refused = Code(name: "refused")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The 1-based line number in a JSON-lines input, or nil for a single document.
    public var line: Int?
    /// The field at fault, as a dotted path, or nil when the whole input is at fault.
    public var field: String?
    /// What was expected, in words.
    public var message: String

    /// Why a bare `"value": null` in the Swift form is refused.
    static let bareNullInSwiftForm =
        #"a bare null value is ambiguous: crdt-lite reads it as no value (a field deletion). "#
        + #"Leave "value" out for no value, or write {"$null": true} for a JSON null"#

    /// Creates an error from its parts.
    public init(code: Code, line: Int? = nil, field: String? = nil, message: String) {
        self.code = code
        self.line = line
        self.field = field
        self.message = message
    }

    /// `line 4: field 'colVersion': expected UInt64`, with absent parts left out.
    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let field { parts.append("field '\(field)'") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// Translates a Foundation decoding error into field and expectation terms.
    init(decoding error: any Error, line: Int?) {
        guard let decodingError = error as? DecodingError else {
            self.init(code: .malformedJSON, line: line, message: "\(error)")
            return
        }
        switch decodingError {
        case .keyNotFound(let key, let context):
            let path = Self.path(context.codingPath + [key])
            self.init(
                code: .missingField, line: line, field: path,
                message: key.stringValue == "recordId"
                    ? "missing (expected recordId or record_id)" : "missing")
        case .typeMismatch(let type, let context):
            self.init(
                code: .wrongType, line: line, field: Self.path(context.codingPath),
                message: "expected \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(
                code: .wrongType, line: line, field: Self.path(context.codingPath),
                message: "expected \(Self.describe(type)), found null")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(code: .malformedJSON, line: line, message: "not valid JSON")
        case .dataCorrupted(let context):
            self.init(
                code: .wrongType, line: line, field: Self.path(context.codingPath),
                message: context.debugDescription)
        @unknown default:
            self.init(code: .malformedJSON, line: line, message: "\(decodingError)")
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String? {
        guard !codingPath.isEmpty else { return nil }
        return codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .joined(separator: ".")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is UInt64.Type: "an unsigned 64-bit integer"
        case is UInt32.Type: "an unsigned 32-bit integer"
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        default: "\(type)"
        }
    }
}
