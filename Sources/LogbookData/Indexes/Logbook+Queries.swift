import Logbook
import LogbookCRDT

extension Logbook {
    /// The models `query` selects from `index`, in `order`, at most `limit` of them,
    /// starting after `cursor`. O(log n + k) for k models read: a binary search of the
    /// index, then one record read and decode per model.
    ///
    /// The index and the records are read at one moment, under the engine's lock (the index
    /// is kept under it), then decoded outside it: an answer is one state's. Throws
    /// `.invalidQuery` when the index is not one of this Logbook's views (it would be empty
    /// or stale) or the query names more columns than it has.
    public func query<Model: LogbookModel>(
        _ index: ModelIndex<Model>, _ query: IndexQuery = .all, order: IndexOrder = .ascending,
        limit: Int = .max, after cursor: IndexCursor? = nil
    ) throws(ModelError) -> QueryPage<Model> {
        guard maintains(index) else {
            throw .invalidQuery(
                index: index.name, reason: "the index is not in this Logbook's options.views")
        }
        if let reason = query.reasonToRefuse(columns: index.columns) {
            throw .invalidQuery(index: index.name, reason: reason)
        }
        let answer = try answer(index, query, order: order, limit: limit, after: cursor)
        return QueryPage(models: answer.models, next: answer.next)
    }

    /// A query's models with their keys, in order, and the cursor of the next page. For
    /// `query` and for an observed query, which watches the keys its answer covers.
    func answer<Model: LogbookModel>(
        _ index: ModelIndex<Model>, _ query: IndexQuery, order: IndexOrder, limit: Int,
        after cursor: IndexCursor?
    ) throws(ModelError) -> (models: [Model], keys: [[UInt8]], next: IndexCursor?) {
        let (low, high) = query.keyRange()
        // The index and the records read at one moment (views are kept under the engine's
        // lock), so every entry's record holds the key it was found under.
        let (entries, records) = readingState { record in
            let entries = index.scan(
                from: low, to: high, descending: order == .descending, limit: max(0, limit),
                after: cursor?.key)
            return (entries, entries.map { record($0.recordId) })
        }
        var models: [Model] = []
        var keys: [[UInt8]] = []
        models.reserveCapacity(entries.count)
        for (entry, record) in zip(entries, records) {
            guard let record else { continue }
            models.append(
                try ModelColumns.decode(Model.self, recordId: entry.recordId, record: record))
            keys.append(entry.key)
        }
        let next = entries.count == limit ? entries.last.map { IndexCursor(key: $0.key) } : nil
        return (models, keys, next)
    }
}
