import LogbookCRDT

/// Where a keyed container reads its values: a dictionary (a nested object, a transaction's
/// view of a record), or a stored record itself, read column by column so that no
/// dictionary of its fields is built for a decode (building one cost as much as the decode).
enum ColumnSource {
    case fields([String: Value])
    case record(Record<String, Value>)

    /// The value of `column`; nil when absent or deleted.
    subscript(column: String) -> Value? {
        switch self {
        case .fields(let fields): return fields[column]
        case .record(let record): return record.field(column)
        }
    }

    /// The columns holding a value.
    var names: [String] {
        switch self {
        case .fields(let fields): return Array(fields.keys)
        case .record(let record): return Array(record.fields.keys)
        }
    }
}
