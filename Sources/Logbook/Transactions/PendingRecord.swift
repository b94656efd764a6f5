import LogbookCRDT

/// A transaction's own writes to one record, laid over what the replica holds so that the
/// transaction reads them back.
struct PendingRecord {
    /// The transaction deleted the record.
    var isDeleted = false
    /// Columns the transaction set (a value) or deleted (nil).
    var columns: [String: Value?] = [:]

    /// The record's visible fields as the transaction sees them: `stored`'s, with this
    /// transaction's writes over them; nil when deleted or when nothing is left.
    func fields(over stored: [String: Value]?) -> [String: Value]? {
        if isDeleted { return nil }
        var fields = stored ?? [:]
        for (column, value) in columns { fields[column] = value }
        if stored == nil, fields.isEmpty { return nil }
        return fields
    }
}
