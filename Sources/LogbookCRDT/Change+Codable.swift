/// Encodes in crdt-lite's Swift form; decodes either form, telling them apart by whether
/// `recordId` or `record_id` is present.
///
/// Decoding rules shared by both forms: an absent `flags` is 0 (older crdt-lite versions had
/// none); an absent `colName`/`value` is nil; an explicit `null` value is nil unless `V`
/// itself decodes null (as `Value.null` does) and the form is Swift, which omits nil and so
/// can only mean a null value by writing `null`.
extension Change {
    /// Decodes crdt-lite JSON in the Swift or the Rust form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ChangeCodingKey.self)
        let format: ChangeJSONFormat =
            container.contains(ChangeField.recordId.key(in: .swift)) ? .swift : .rust
        if format == .rust && !container.contains(ChangeField.recordId.key(in: .rust)) {
            throw DecodingError.keyNotFound(
                ChangeField.recordId.key(in: .swift),
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "neither recordId (Swift form) nor record_id (Rust form)"))
        }
        func key(_ field: ChangeField) -> ChangeCodingKey { field.key(in: format) }

        recordId = try container.decode(K.self, forKey: key(.recordId))
        colName = try container.decodeIfPresent(C.self, forKey: key(.colName))
        value = try Self.decodeValue(from: container, key: key(.value), format: format)
        colVersion = try Self.decodeUnsigned(from: container, key: key(.colVersion))
        dbVersion = try Self.decodeUnsigned(from: container, key: key(.dbVersion))
        nodeId = try Self.decodeUnsigned(from: container, key: key(.nodeId))
        localDbVersion = try Self.decodeUnsigned(from: container, key: key(.localDbVersion))
        flags =
            container.contains(key(.flags))
            ? try Self.decodeUnsigned(from: container, key: key(.flags)) : 0
    }

    /// Encodes in crdt-lite's Swift form.
    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, format: .swift)
    }

    /// Encodes in the given form.
    func encode(to encoder: any Encoder, format: ChangeJSONFormat) throws {
        var container = encoder.container(keyedBy: ChangeCodingKey.self)
        func key(_ field: ChangeField) -> ChangeCodingKey { field.key(in: format) }
        try container.encode(recordId, forKey: key(.recordId))
        switch format {
        case .swift:
            try container.encodeIfPresent(colName, forKey: key(.colName))
            try container.encodeIfPresent(value, forKey: key(.value))
        case .rust:
            try container.encode(colName, forKey: key(.colName))
            try container.encode(value, forKey: key(.value))
        }
        try container.encode(colVersion, forKey: key(.colVersion))
        try container.encode(dbVersion, forKey: key(.dbVersion))
        try container.encode(nodeId, forKey: key(.nodeId))
        try container.encode(localDbVersion, forKey: key(.localDbVersion))
        try container.encode(flags, forKey: key(.flags))
    }

    /// Foundation reports a negative or fractional number for an unsigned field with an
    /// internal error that surfaces as "not valid JSON" with no path; name the field and the
    /// expectation instead. Missing keys and nulls keep their own errors.
    private static func decodeUnsigned<T: FixedWidthInteger & Decodable>(
        from container: KeyedDecodingContainer<ChangeCodingKey>, key: ChangeCodingKey
    ) throws -> T {
        do {
            return try container.decode(T.self, forKey: key)
        } catch DecodingError.keyNotFound(let missing, let context) {
            throw DecodingError.keyNotFound(missing, context)
        } catch DecodingError.valueNotFound(let type, let context) {
            throw DecodingError.valueNotFound(type, context)
        } catch {
            throw DecodingError.typeMismatch(
                T.self,
                DecodingError.Context(
                    codingPath: container.codingPath + [key],
                    debugDescription: "expected an unsigned integer that fits \(T.self)"))
        }
    }

    private static func decodeValue(
        from container: KeyedDecodingContainer<ChangeCodingKey>, key: ChangeCodingKey,
        format: ChangeJSONFormat
    ) throws -> V? {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) {
            guard format == .swift else { return nil }
            return try? container.decode(V.self, forKey: key)
        }
        return try container.decode(V.self, forKey: key)
    }
}

/// Puts a change in the Rust form for an encoder.
struct RustFormChange<
    K: Hashable & Codable & Sendable, C: Hashable & Codable & Sendable,
    V: Hashable & Codable & Sendable
>: Encodable {
    let change: Change<K, C, V>

    func encode(to encoder: any Encoder) throws {
        try change.encode(to: encoder, format: .rust)
    }
}
