import Foundation

/// BM25 queries: from the index, and by scanning every entity (the reference the indexed
/// answer is tested against).
extension SearchIndex {
    /// BM25 over tokenized names and content: entities holding a query term, best first,
    /// ties in insertion order. Highlights name the matched terms.
    public func searchBM25(_ query: String, types: Set<String>? = nil, limit: Int = 10)
        -> [Result]
    {
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        guard limit > 0 else { return [] }
        let queryTokens = BM25Index.tokens(lowercasing: query)
        var top: [(slot: Int32, score: Double)] = []
        bm25.scores(for: queryTokens) { slot, score in
            if top.count == limit, let last = top.last, score < last.score { return }
            let document = documents[Int(slot)]
            guard document.alive, types.map({ document.passes($0) }) ?? true else { return }
            keep(slot, score, in: &top, limit: limit)
        }
        return top.map { slot, score in
            let document = documents[Int(slot)]
            return Result(
                id: document.id, entityType: document.type, name: document.name ?? "",
                score: score, highlights: ["terms": queryTokens])
        }
    }

    /// The same BM25 ranking computed from every live entity's text: slow, and the
    /// reference for `searchBM25`.
    public func searchBM25ByScanning(_ query: String, types: Set<String>? = nil, limit: Int = 10)
        -> [Result]
    {
        lock.lock()
        defer { lock.unlock() }
        let queryTokens = BM25Index.tokens(lowercasing: query)
        var counts: [Int32: [String: Int]] = [:]
        var lengths: [Int32: Int] = [:]
        var frequencies: [String: Int] = [:]
        for slot in documents.indices where documents[slot].alive {
            let derived = Self.texts(of: documents[slot])
            let tokens =
                BM25Index.tokens(derived.name) + BM25Index.tokens(derived.content ?? [])
            var documentCounts: [String: Int] = [:]
            for token in tokens { documentCounts[token, default: 0] += 1 }
            for term in documentCounts.keys { frequencies[term, default: 0] += 1 }
            counts[Int32(slot)] = documentCounts
            lengths[Int32(slot)] = tokens.count
        }
        let count = Double(counts.count)
        let averageLength = max(1, Double(lengths.values.reduce(0, +)) / max(1, count))
        var scored: [(slot: Int32, score: Double)] = []
        for (slot, documentCounts) in counts {
            var score = 0.0
            var matched = false
            for term in Set(queryTokens).sorted() {
                guard let termCount = documentCounts[term], let frequency = frequencies[term]
                else { continue }
                matched = true
                let idf = log((count - Double(frequency) + 0.5) / (Double(frequency) + 0.5) + 1)
                let tf = Double(termCount)
                let length = Double(lengths[slot] ?? 0)
                let k1 = BM25Index.k1
                let b = BM25Index.b
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / averageLength))
            }
            guard matched, types.map({ documents[Int(slot)].passes($0) }) ?? true else { continue }
            scored.append((slot, score))
        }
        scored.sort { lhs, rhs in
            lhs.score != rhs.score
                ? lhs.score > rhs.score
                : documents[Int(lhs.slot)].sequence < documents[Int(rhs.slot)].sequence
        }
        return scored.prefix(limit).map { slot, score in
            let document = documents[Int(slot)]
            return Result(
                id: document.id, entityType: document.type, name: document.name ?? "",
                score: score, highlights: ["terms": queryTokens])
        }
    }
}
