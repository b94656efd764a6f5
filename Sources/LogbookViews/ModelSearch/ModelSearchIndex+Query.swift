import Foundation

/// One record a search found.
public struct ModelSearchHit: Equatable, Sendable {
    /// The record's id.
    public var recordId: String
    /// Its BM25 score (higher is better).
    public var score: Double
}

extension ModelSearchIndex {
    /// The records holding a term of `query`, best first (ties in record-id order), at
    /// most `limit`. Costs the postings of the query's terms, not the corpus.
    public func search(_ query: String, limit: Int = 20) -> [ModelSearchHit] {
        guard limit > 0 else { return [] }
        let terms = BM25Index.tokens(lowercasing: query)
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        var top: [(slot: Int32, score: Double)] = []
        postings.scores(for: terms) { slot, score in
            // Most candidates of a common term score below the last kept: no id compared.
            if top.count == limit, let last = top.last, score < last.score { return }
            guard let recordId = documents[Int(slot)]?.recordId else { return }
            let candidate = (slot: slot, score: score)
            let ranksBefore = { (other: (slot: Int32, score: Double)) -> Bool in
                other.score != score
                    ? score > other.score
                    : recordId < (self.documents[Int(other.slot)]?.recordId ?? "")
            }
            if top.count == limit, let last = top.last, !ranksBefore(last) { return }
            top.insert(candidate, at: top.firstIndex(where: ranksBefore) ?? top.endIndex)
            if top.count > limit { top.removeLast() }
        }
        return top.compactMap { slot, score in
            documents[Int(slot)].map { ModelSearchHit(recordId: $0.recordId, score: score) }
        }
    }
}
