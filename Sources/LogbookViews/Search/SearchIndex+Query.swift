/// Queries: The Goodies' ranking from the indexes, the same ranking by scanning (the
/// reference the indexed answer is tested against), and BM25.
extension SearchIndex {
    /// A parsed query: lower-cased, as scalars, and its whitespace-separated words.
    struct Query {
        /// As given (The Goodies quotes it so in highlights).
        var original: String
        var text: String
        var scalars: [UInt32]
        var words: [[UInt32]]

        init(_ query: String) {
            original = query
            text = query.lowercased()
            scalars = SearchIndex.scalars(text)
            words = text.unicodeScalars.split { $0.properties.isWhitespace }.map {
                $0.map(\.value)
            }
        }
    }

    /// The Goodies' search: entities scoring above 0, best first, ties in insertion order,
    /// at most `limit`, optionally only of `types`. Candidates come from the indexes.
    public func search(_ query: String, types: Set<String>? = nil, limit: Int = 10) -> [Result] {
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        let parsed = Query(query)
        return rank(candidates(for: parsed), parsed, types: types, limit: limit)
    }

    /// The same ranking by scoring every entity: slow, and the reference for `search`.
    public func searchByScanning(_ query: String, types: Set<String>? = nil, limit: Int = 10)
        -> [Result]
    {
        lock.lock()
        defer { lock.unlock() }
        let parsed = Query(query)
        return rank(
            documents.indices.filter { documents[$0].alive }.map { Int32($0) }, parsed,
            types: types, limit: limit, fresh: true)
    }

    /// BM25 over tokenized names and content: entities holding a query term, best first,
    /// ties in insertion order. Highlights name the matched terms.
    public func searchBM25(_ query: String, types: Set<String>? = nil, limit: Int = 10)
        -> [Result]
    {
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        let queryTokens = BM25Index.tokens(Self.scalars(query.lowercased()))
        let scored = bm25.scores(for: queryTokens).compactMap { slot, score -> (Int32, Double)? in
            let document = documents[Int(slot)]
            guard document.alive, types.map({ document.type.map($0.contains) ?? false }) ?? true
            else { return nil }
            return (slot, score)
        }
        return best(scored, limit: limit).map { slot, score in
            let document = documents[Int(slot)]
            return Result(
                id: document.id, entityType: document.type, name: document.name ?? "",
                score: score, highlights: ["terms": queryTokens])
        }
    }

    private func candidates(for query: Query) -> [Int32] {
        var found: Set<Int32> = []
        var needles = [query.scalars]
        needles.append(contentsOf: query.words)
        for needle in needles {
            guard let inName = namePostings.candidates(containing: needle),
                let inContent = contentPostings.candidates(containing: needle)
            else {
                // An empty query is a substring of every name: everything matches.
                return documents.indices.filter { documents[$0].alive }.map { Int32($0) }
            }
            found.formUnion(inName)
            found.formUnion(inContent)
        }
        found.formUnion(nameBigrams.candidates(for: query.scalars))
        return found.filter { documents[Int($0)].alive }.sorted()
    }

    private func rank(
        _ slots: [Int32], _ query: Query, types: Set<String>?, limit: Int, fresh: Bool = false
    ) -> [Result] {
        guard limit > 0 else { return [] }
        var scored: [(Int32, Double, [String: [String]])] = []
        for slot in slots {
            let document = documents[Int(slot)]
            if let types, !(document.type.map(types.contains) ?? false) { continue }
            let derived =
                fresh ? Self.texts(of: document) : (texts[Int(slot)] ?? Self.texts(of: document))
            let (score, highlights) = Self.score(document, derived, query)
            if score > 0 { scored.append((slot, score, highlights)) }
        }
        let highlightsBySlot = Dictionary(scored.map { ($0.0, $0.2) }) { first, _ in first }
        return best(scored.map { ($0.0, $0.1) }, limit: limit).map { slot, score in
            let document = documents[Int(slot)]
            return Result(
                id: document.id, entityType: document.type, name: document.name ?? "",
                score: score, highlights: highlightsBySlot[slot] ?? [:])
        }
    }

    /// The top `limit` by score, ties in insertion order.
    private func best(_ scored: [(Int32, Double)], limit: Int) -> [(Int32, Double)] {
        guard limit > 0 else { return [] }
        return Array(
            scored.sorted { lhs, rhs in
                if lhs.1 != rhs.1 { return lhs.1 > rhs.1 }
                return documents[Int(lhs.0)].sequence < documents[Int(rhs.0)].sequence
            }.prefix(limit))
    }

    /// The Goodies' score of one entity, with its highlights, in the order The Goodies adds
    /// the terms (so the floating-point sums are the same).
    static func score(_ document: Document, _ texts: Texts, _ query: Query) -> (
        Double, [String: [String]]
    ) {
        var score = 0.0
        var highlights: [String: [String]] = [:]
        let name = document.name ?? ""
        if contains(texts.name, query.scalars) {
            score += 3.0
            highlights["name"] = [name]
        } else {
            let matches = query.words.filter { contains(texts.name, $0) }.count
            if matches > 0 {
                score += 1.5 * Double(matches)
                highlights["name"] = [name]
            }
        }
        if let content = texts.content {
            var reasons: [String] = []
            if contains(content, query.scalars) {
                score += 2.0
                reasons.append("Content contains '\(query.original)'")
            } else {
                let matches = query.words.filter { contains(content, $0) }.count
                if matches > 0 {
                    score += 0.5 * Double(matches)
                    reasons.append("Content matches \(matches) word(s)")
                }
            }
            for value in texts.stringValues where contains(value.lowered, query.scalars) {
                score += 1.0
                reasons.append(
                    "\(value.key): \(String(value.original.unicodeScalars.prefix(50)))...")
            }
            if !reasons.isEmpty { highlights["content"] = reasons }
        }
        if texts.name == query.scalars { score *= 2.0 }
        let similarity = SequenceMatcher.ratio(texts.name, query.scalars)
        if similarity > 0.8 { score += similarity }
        return (score, highlights)
    }

    /// Whether `needle` occurs in `haystack` (scalar by scalar, as Python's `in`).
    static func contains(_ haystack: [UInt32], _ needle: [UInt32]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first {
                var matched = 1
                while matched < needle.count, haystack[start + matched] == needle[matched] {
                    matched += 1
                }
                if matched == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
