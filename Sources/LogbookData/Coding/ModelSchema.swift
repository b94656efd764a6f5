import LogbookCRDT

/// What a model type says about records its current shape does not match: the names its
/// columns had, the values of columns added since, and the id a record without an `id`
/// column holds in its record id (records written by a crdt-lite client or an importer,
/// The Goodies' entities). Consulted only for a column the record lacks, so a record in
/// the current shape decodes as it always did.
struct ModelSchema {
    let renamed: [String: [String]]
    let defaults: [String: Value]
    let recordId: String
    /// The model type, asked for its prefix and id type only when a record lacks `id`.
    let model: any LogbookModel.Type

    /// The schema of `type` for the record `recordId`.
    static func of<M: LogbookModel>(_ type: M.Type, recordId: String) -> ModelSchema {
        ModelSchema(
            renamed: M.renamedColumns, defaults: M.columnDefaults, recordId: recordId, model: type)
    }

    /// The id the record id spells after `type`'s prefix, as the id's own encoding writes it.
    private static func idValue<M: LogbookModel>(_ type: M.Type, recordId: String) -> Value? {
        guard recordId.hasPrefix(M.recordPrefix),
            let id = M.ID(recordKey: String(recordId.dropFirst(M.recordPrefix.count))),
            let encodable = id as? any Encodable
        else { return nil }
        return try? ValueEncoder.encode(encodable)
    }

    /// The value a record lacking `column` reads for it: its first earlier name that the
    /// record holds; for `id`, the id its record id spells; else the default; nil when none.
    func fallback(for column: String, in columns: ColumnSource) -> Value? {
        if !renamed.isEmpty {
            for earlier in renamed[column] ?? [] {
                if let value = columns[earlier] { return value }
            }
        }
        if column == "id", let value = Self.idValue(model, recordId: recordId) { return value }
        return defaults.isEmpty ? nil : defaults[column]
    }
}
