import LogbookCRDT

/// What a model type says about records written by its earlier versions: the names its
/// columns had, and the values of columns added since. Consulted only for a column the
/// record lacks, so a record in the current shape decodes as it always did.
struct ModelSchema {
    let renamed: [String: [String]]
    let defaults: [String: Value]

    /// The type's schema; nil when it renames nothing and defaults nothing (most models),
    /// so that a decode of them looks nothing up.
    static func of<M: LogbookModel>(_ type: M.Type) -> ModelSchema? {
        let renamed = M.renamedColumns
        let defaults = M.columnDefaults
        guard !renamed.isEmpty || !defaults.isEmpty else { return nil }
        return ModelSchema(renamed: renamed, defaults: defaults)
    }

    /// The value a record lacking `column` reads for it: its first earlier name that the
    /// record holds, else the default; nil when neither.
    func fallback(for column: String, in columns: ColumnSource) -> Value? {
        for earlier in renamed[column] ?? [] {
            if let value = columns[earlier] { return value }
        }
        return defaults[column]
    }
}
