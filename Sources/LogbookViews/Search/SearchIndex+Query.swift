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
        let fuzzy = nameBigrams.candidates(for: parsed.scalars)
        return rank(candidates(for: parsed, fuzzy: fuzzy), parsed, types: types, limit: limit, fuzzy: fuzzy)
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
            types: types, limit: limit, fuzzy: nil, fresh: true)
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

    private func candidates(for query: Query, fuzzy: Set<Int32>) -> [Int32] {
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
        found.formUnion(fuzzy)
        return found.filter { documents[Int($0)].alive }.sorted()
    }

    /// Scores `slots` and keeps the best. `fuzzy`, when given, holds every slot whose name
    /// can pass the 0.8 similarity bar (see `NameBigrams`); others skip the ratio. Highlights
    /// are built only for the results returned.
    private func rank(
        _ slots: [Int32], _ query: Query, types: Set<String>?, limit: Int, fuzzy: Set<Int32>?,
        fresh: Bool = false
    ) -> [Result] {
        guard limit > 0 else { return [] }
        func derived(_ slot: Int32) -> Texts {
            let document = documents[Int(slot)]
            return fresh ? Self.texts(of: document) : (texts[Int(slot)] ?? Self.texts(of: document))
        }
        var scored: [(Int32, Double)] = []
        var noHighlights: [String: [String]]? = nil
        for slot in slots {
            let document = documents[Int(slot)]
            if let types, !(document.type.map(types.contains) ?? false) { continue }
            let score = Self.score(
                document, derived(slot), query, fuzzy: fuzzy?.contains(slot) ?? true,
                highlights: &noHighlights)
            if score > 0 { scored.append((slot, score)) }
        }
        return best(scored, limit: limit).map { slot, score in
            let document = documents[Int(slot)]
            var highlights: [String: [String]]? = [:]
            _ = Self.score(document, derived(slot), query, fuzzy: false, highlights: &highlights)
            return Result(
                id: document.id, entityType: document.type, name: document.name ?? "",
                score: score, highlights: highlights ?? [:])
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

    /// The Goodies' score of one entity, adding the terms in The Goodies' order (so the
    /// floating-point sums are the same). The similarity ratio is computed only when `fuzzy`
    /// says it may pass; `highlights`, when not nil, receives the reasons.
    static func score(
        _ document: Document, _ texts: Texts, _ query: Query, fuzzy: Bool,
        highlights: inout [String: [String]]?
    ) -> Double {
        var score = 0.0
        let name = document.name ?? ""
        if contains(texts.name, query.scalars) {
            score += 3.0
            highlights?["name"] = [name]
        } else {
            let matches = query.words.filter { contains(texts.name, $0) }.count
            if matches > 0 {
                score += 1.5 * Double(matches)
                highlights?["name"] = [name]
            }
        }
        if let content = texts.content {
            var reasons: [String] = []
            let explain = highlights != nil
            if contains(content, query.scalars) {
                score += 2.0
                if explain { reasons.append("Content contains '\(query.original)'") }
            } else {
                let matches = query.words.filter { contains(content, $0) }.count
                if matches > 0 {
                    score += 0.5 * Double(matches)
                    if explain { reasons.append("Content matches \(matches) word(s)") }
                }
            }
            for value in texts.stringValues where contains(value.lowered, query.scalars) {
                score += 1.0
                if explain {
                    reasons.append(
                        "\(value.key): \(String(String.UnicodeScalarView(value.original.unicodeScalars.prefix(50))))...")
                }
            }
            if !reasons.isEmpty { highlights?["content"] = reasons }
        }
        if texts.name == query.scalars { score *= 2.0 }
        if fuzzy {
            let similarity = SequenceMatcher.ratio(texts.name, query.scalars)
            if similarity > 0.8 { score += similarity }
        }
        return score
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
