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

    /// Stores every model in `models` as `save(_:)` does, in one batch of the log, kept
    /// whole or not at all by a crash, and one wait for durability: each record's writes
    /// are worked out from it as stored, under the engine's lock, in the hold that writes
    /// them, so nothing can change a record in between. A deleted model refuses the whole
    /// call (`.deleted`, nothing written). Up to 16 MiB of changes a call (a batch's
    /// limit); larger imports save in slices.
    @discardableResult
    public nonisolated(nonsending) func save<M: LogbookModel>(_ models: [M])
        async throws(ModelError) -> [Change<String, String, Value>]
    {
        let recordIds = models.map { $0.recordId }
        guard Set(recordIds).count == recordIds.count else {
            // A model saved twice in one call: each save must see the one before it.
            do {
                return try await transactionWithChanges { transaction in
                    for model in models { try transaction.save(model) }
                }.changes
            } catch {
                throw ModelError(transactionError: error)
            }
        }
        let encoded = try models.map { model throws(ModelError) in try ModelColumns.encode(model) }
        guard let first = encoded.first else { return [] }
        let known = try ModelColumns.knownColumns(M.self, recordId: recordIds[0], encoded: first)
        do {
            // Each record's writes are worked out from it as stored, under the engine's lock,
            // so a save is a transaction that never has to run again.
            return try await writeDerived(from: recordIds) { position, record in
                var columns = encoded[position]
                if record == nil { ModelColumns.stampNewRecord(&columns, of: M.self) }
                return ModelColumns.writes(
                    recordId: recordIds[position], record: record, encoded: columns, known: known)
            }
        } catch {
            if error.code == .recordDeleted, let position = error.changeIndex,
                recordIds.indices.contains(position)
            {
                throw .deleted(recordId: recordIds[position])
            }
            throw .engine(error)
        }
    }

    /// The model of type `M` with `id`; nil when there is none (or it was deleted).
    public func model<M: LogbookModel>(_ type: M.Type, id: M.ID) throws(ModelError) -> M? {
        let recordId = M.recordId(for: id)
        guard let record = getRecord(recordId) else { return nil }
        return try ModelColumns.decode(type, recordId: recordId, record: record)
    }

    /// Every model of type `M`, in record-id order. O(records): a scan of the whole state.
    public func models<M: LogbookModel>(_ type: M.Type) throws(ModelError) -> [M] {
        let prefix = M.recordPrefix
        var found: [M] = []
        // Only this type's records are sorted, not the whole state.
        let mine = records().filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }
        for (recordId, record) in mine {
            found.append(try ModelColumns.decode(type, recordId: recordId, record: record))
        }
        return found
    }

    /// Reads the model with `id`, lets `change` edit it, and saves it, in one transaction:
    /// only the properties `change` set to new values are written, and when the record
    /// changes between the read and the write (another task, a merge), `change` runs again on
    /// what is there now, so it must do nothing but edit the model. Throws `.notFound` when
    /// there is no such model, `.deleted` when it was deleted.
    @discardableResult
    public nonisolated(nonsending) func update<M: LogbookModel>(
        _ type: M.Type, id: M.ID, _ change: (inout M) -> Void
    ) async throws(ModelError) -> [Change<String, String, Value>] {
        do {
            return try await transactionWithChanges { transaction in
                try transaction.update(type, id: id, change)
            }.changes
        } catch {
            throw ModelError(transactionError: error)
        }
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
}
