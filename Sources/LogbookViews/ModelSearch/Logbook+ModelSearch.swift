import Logbook
import LogbookData

/// A model a search found, with its score.
public struct ModelSearchResult<Model: LogbookModel>: Sendable {
    /// The model as stored now.
    public var model: Model
    /// Its BM25 score (higher is better).
    public var score: Double
}

extension Logbook {
    /// The models of `index`'s type whose searched columns hold a term of `query`, best
    /// first (ties in record-id order), at most `limit`, each read as it is stored now.
    /// Throws `.invalidQuery` when `index` is not one of this Logbook's views, and
    /// `.undecodable` for a record the model cannot read.
    public func search<M: LogbookModel>(
        _ index: ModelSearchIndex<M>, _ query: String, limit: Int = 20
    ) throws(ModelError) -> [ModelSearchResult<M>] {
        guard maintains(index) else {
            throw .invalidQuery(
                index: index.name,
                reason: "the index is not one of this Logbook's views (LogbookOptions.views)")
        }
        var results: [ModelSearchResult<M>] = []
        for hit in index.search(query, limit: limit) {
            let key = String(hit.recordId.dropFirst(M.recordPrefix.count))
            guard let id = M.ID(recordKey: key) else {
                throw .undecodable(
                    recordId: hit.recordId, path: "id", expected: "an id of \(M.self)",
                    found: "the record key \"\(key)\"")
            }
            // A record deleted between the search and the read is left out.
            if let model = try model(M.self, id: id) {
                results.append(ModelSearchResult(model: model, score: hit.score))
            }
        }
        return results
    }
}
