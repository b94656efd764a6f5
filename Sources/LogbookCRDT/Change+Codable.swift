/// Encodes in crdt-lite's Swift form; decodes either form, telling them apart by whether
/// `recordId` or `record_id` is present.
///
/// Decoding rules shared by both forms: an absent `flags` is 0 (older crdt-lite versions had
/// none); an absent `colName`/`value` is nil.
///
/// A JSON null as a change's value (`Value.null`, a live cell holding null) is written
/// `{"$null": true}` in both forms: crdt-lite's decoders, Swift and Rust, read a bare
/// `"value": null` as no value — a field deletion — so a bare null would silently delete the
/// cell on their side. Reading, `{"$null": true}` is `Value.null`; in the Rust form a bare
/// null is no value (as crdt-lite writes it); in the Swift form, which omits no value, a
/// bare null value is refused as ambiguous when `V` is `Value` (crdt-lite would read it as
/// a deletion, older Logbook exports meant a null), naming both spellings. Nulls inside an
/// array or object value are plain JSON nulls: only the top level is ambiguous.
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
        case .swift: try container.encodeIfPresent(colName, forKey: key(.colName))
        case .rust: try container.encode(colName, forKey: key(.colName))
        }
        if let value {
            if let plain = value as? Value, plain == .null {
                try container.encode([Value.nullTag: true], forKey: key(.value))
            } else {
                try container.encode(value, forKey: key(.value))
            }
        } else if format == .rust {
            try container.encodeNil(forKey: key(.value))
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
            guard V.self == Value.self else { return try? container.decode(V.self, forKey: key) }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath + [key],
                    debugDescription: ChangeJSONError.bareNullInSwiftForm))
        }
        return try container.decode(V.self, forKey: key)  // `Value` reads {"$null": true}
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
