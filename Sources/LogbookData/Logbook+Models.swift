import Logbook
import LogbookCRDT

extension Logbook {
    /// Stores `model` as its record: writes the columns whose value differs from what the
    /// record holds (so saving a model with one property changed writes one column, and
    /// another device's edit to another property survives the merge), and erases the
    /// columns of properties now nil. Columns the model does not know (a newer version of
    /// the app wrote them) are kept. Returns the changes, durable per the Logbook's mode.
    ///
    /// Throws `.deleted` when the record was deleted: crdt-lite never revives one.
    @discardableResult
    public nonisolated(nonsending) func save<M: LogbookModel>(_ model: M)
        async throws(ModelError) -> [Change<String, String, Value>]
    {
        try await save([model])
    }

    /// Stores every model in `models` as `save(_:)` does, in one batch: one append to the
    /// log and one wait for durability, for imports.
    @discardableResult
    public nonisolated(nonsending) func save<M: LogbookModel>(_ models: [M])
        async throws(ModelError) -> [Change<String, String, Value>]
    {
        var writes: [LocalWrite] = []
        for model in models {
            writes += try modelWrites(model)
        }
        guard !writes.isEmpty else { return [] }
        do {
            return try await write(writes)
        } catch {
            throw .engine(error)
        }
    }

    /// The model of type `M` with `id`; nil when there is none (or it was deleted).
    public func model<M: LogbookModel>(_ type: M.Type, id: M.ID) throws(ModelError) -> M? {
        let recordId = M.recordId(for: id)
        guard let record = getRecord(recordId) else { return nil }
        return try ModelColumns.decode(type, recordId: recordId, columns: record.fields)
    }

    /// Every model of type `M`, in record-id order. O(records): a scan of the whole state.
    public func models<M: LogbookModel>(_ type: M.Type) throws(ModelError) -> [M] {
        let prefix = M.recordPrefix
        var found: [M] = []
        // Only this type's records are sorted, not the whole state.
        let mine = records().filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }
        for (recordId, record) in mine {
            found.append(try ModelColumns.decode(type, recordId: recordId, columns: record.fields))
        }
        return found
    }

    /// Reads the model with `id`, lets `change` edit it, and saves it: only the properties
    /// `change` set to new values are written. Throws `.notFound` when there is no such
    /// model, `.deleted` when it was deleted.
    @discardableResult
    public nonisolated(nonsending) func update<M: LogbookModel>(
        _ type: M.Type, id: M.ID, _ change: (inout M) -> Void
    ) async throws(ModelError) -> [Change<String, String, Value>] {
        let recordId = M.recordId(for: id)
        if isTombstoned(recordId) { throw .deleted(recordId: recordId) }
        guard var model = try model(type, id: id) else { throw .notFound(recordId: recordId) }
        change(&model)
        guard model.id == id else {
            throw .unencodable(
                recordId: recordId, path: "id",
                reason: "update changed the model's id; save it as a new model instead")
        }
        return try await save(model)
    }

    /// Deletes the model's record. False when there was none to delete (already deleted).
    @discardableResult
    public nonisolated(nonsending) func delete<M: LogbookModel>(_ type: M.Type, id: M.ID)
        async throws(ModelError) -> Bool
    {
        do {
            return try await deleteRecord(M.recordId(for: id)) != nil
        } catch {
            throw .engine(error)
        }
    }

    /// The writes that save `model`; none when the record already holds it.
    private func modelWrites<M: LogbookModel>(_ model: M) throws(ModelError) -> [LocalWrite] {
        let recordId = model.recordId
        // A live record is not tombstoned: one read of the state, not two, per model.
        let stored = getRecord(recordId)
        if stored == nil, isTombstoned(recordId) { throw .deleted(recordId: recordId) }
        let encoded = try ModelColumns.encode(model)
        let known = try ModelColumns.knownColumns(M.self, recordId: recordId, encoded: encoded)
        return ModelColumns.writes(
            recordId: recordId, stored: stored?.fields ?? [:], encoded: encoded, known: known)
    }
}
