import Logbook
import LogbookCRDT

extension Transaction {
    /// The model of type `M` with `id` as this transaction sees it (its own writes over the
    /// stored record); nil when there is none or it was deleted.
    public mutating func model<M: LogbookModel>(_ type: M.Type, id: M.ID) throws(ModelError)
        -> M?
    {
        let recordId = M.recordId(for: id)
        guard let columns = fields(recordId) else { return nil }
        return try ModelColumns.decode(type, recordId: recordId, columns: columns)
    }

    /// Stores `model` as `Logbook.save(_:)` does, as part of this transaction: the columns
    /// whose value differs from what the transaction sees, and the erasure of properties now
    /// nil. Throws `.deleted` for a deleted record.
    public mutating func save<M: LogbookModel>(_ model: M) throws(ModelError) {
        let recordId = model.recordId
        if isDeleted(recordId) { throw .deleted(recordId: recordId) }
        var encoded = try ModelColumns.encode(model)
        let known = try ModelColumns.knownColumns(M.self, recordId: recordId, encoded: encoded)
        let stored = fields(recordId)
        if stored == nil { ModelColumns.stampNewRecord(&encoded, of: M.self) }
        try apply(
            ModelColumns.writes(
                recordId: recordId, stored: stored ?? [:], encoded: encoded, known: known),
            to: recordId)
    }

    /// Makes `writes` (all of one record) part of this transaction.
    mutating func apply(_ writes: [LocalWrite], to recordId: String) throws(ModelError) {
        do throws(LogbookError) {
            for write in writes {
                switch write {
                case .insertOrUpdate(let recordId, let fields):
                    try insertOrUpdate(recordId, fields: fields)
                case .deleteField(let recordId, let fieldName):
                    try deleteField(recordId, fieldName: fieldName)
                case .deleteRecord(let recordId):
                    try deleteRecord(recordId)
                }
            }
        } catch {
            throw ModelError(error, recordId: recordId)
        }
    }

    /// Reads the model with `id`, lets `change` edit it and saves it, as part of this
    /// transaction. Throws `.notFound` when there is none, `.deleted` when it was deleted.
    public mutating func update<M: LogbookModel>(
        _ type: M.Type, id: M.ID, _ change: (inout M) -> Void
    ) throws(ModelError) {
        let recordId = M.recordId(for: id)
        if isDeleted(recordId) { throw .deleted(recordId: recordId) }
        guard var model = try model(type, id: id) else { throw .notFound(recordId: recordId) }
        change(&model)
        guard model.id == id else {
            throw .unencodable(
                recordId: recordId, path: "id",
                reason: "update changed the model's id; save it as a new model instead")
        }
        try save(model)
    }

    /// Deletes the model's record as part of this transaction, for good.
    public mutating func delete<M: LogbookModel>(_ type: M.Type, id: M.ID) throws(ModelError) {
        let recordId = M.recordId(for: id)
        do throws(LogbookError) {
            try deleteRecord(recordId)
        } catch {
            throw ModelError(error, recordId: recordId)
        }
    }
}
