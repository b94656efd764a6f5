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
        /// The query indexed for the similarity ratio (every candidate is compared with it).
        var matcher: SequenceMatcher.Prepared

        init(_ query: String) {
            original = query
            text = query.lowercased()
            scalars = SearchIndex.scalars(text)
            words = text.unicodeScalars.split { $0.properties.isWhitespace }.map {
                $0.map(\.value)
            }
            matcher = SequenceMatcher.Prepared(scalars)
        }
    }

    /// The Goodies' search: entities scoring above 0, best first, ties in insertion order,
    /// at most `limit`, optionally only of `types`.
    ///
    /// Candidates come from the n-gram postings (which entities may contain the query or
    /// one of its words, in the name or the content) and the fuzzy bound. From the same
    /// lists each candidate gets an upper bound on its score; candidates are scored exactly
    /// in decreasing bound order, stopping once no remaining bound can reach the
    /// `limit`-th best score — so a query matching half the corpus still scores few entities.
    public func search(_ query: String, types: Set<String>? = nil, limit: Int = 10) -> [Result] {
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        guard limit > 0 else { return [] }
        let parsed = Query(query)
        guard let nameFull = namePostings.candidates(containing: parsed.scalars),
            let contentFull = contentPostings.candidates(containing: parsed.scalars)
        else {
            // An empty query is a substring of every name: everything matches.
            let all = documents.indices.filter { documents[$0].alive }.map { Int32($0) }
            return rank(all, parsed, types: types, limit: limit, fuzzy: nil)
        }
        var hits = [Hits](repeating: Hits(), count: documents.count)
        var touched: [Int32] = []
        func mark(_ slots: [Int32], _ update: (inout Hits) -> Void) {
            for slot in slots {
                if !hits[Int(slot)].touched {
                    hits[Int(slot)].touched = true
                    touched.append(slot)
                }
                update(&hits[Int(slot)])
            }
        }
        mark(nameFull) { $0.nameFull = true }
        mark(contentFull) { $0.contentFull = true }
        for word in parsed.words {
            mark(namePostings.candidates(containing: word) ?? []) { $0.nameWords += 1 }
            mark(contentPostings.candidates(containing: word) ?? []) { $0.contentWords += 1 }
        }
        mark(nameBigrams.candidates(for: parsed.scalars)) { $0.fuzzy = true }

        var bounded: [(slot: Int32, bound: Double)] = []
        bounded.reserveCapacity(touched.count)
        for slot in touched {
            let document = documents[Int(slot)]
            guard document.alive, let derived = texts[Int(slot)] else { continue }
            if let types, !(document.type.map(types.contains) ?? false) { continue }
            bounded.append((slot, Self.bound(hits[Int(slot)], derived, parsed)))
        }
        // Slots are handed out in insertion order, so slot order is the tie order.
        bounded.sort { ($0.bound, -$0.slot) > ($1.bound, -$1.slot) }
        var top: [(slot: Int32, score: Double)] = []
        var noHighlights: [String: [String]]? = nil
        for candidate in bounded {
            if top.count == limit, let last = top.last,
                candidate.bound < last.score
                    || (candidate.bound == last.score && candidate.slot > last.slot)
            {
                break  // nothing left can outrank the last kept result
            }
            guard let derived = texts[Int(candidate.slot)] else { continue }
            let score = Self.score(
                documents[Int(candidate.slot)], derived, parsed,
                fuzzy: hits[Int(candidate.slot)].fuzzy, highlights: &noHighlights)
            guard score > 0 else { continue }
            let entry = (slot: candidate.slot, score: score)
            let position = top.firstIndex { ranksBefore(entry, $0) } ?? top.endIndex
            if position < limit {
                top.insert(entry, at: position)
                if top.count > limit { top.removeLast() }
            }
        }
        return top.map { result(slot: $0.slot, score: $0.score, query: parsed) }
    }

    /// Which lists named an entity: the basis of its score bound.
    struct Hits {
        var touched = false
        var nameFull = false
        var contentFull = false
        var fuzzy = false
        var nameWords = 0
        var contentWords = 0
    }

    /// The most an entity with these hits can score (see `score` for the terms).
    static func bound(_ hits: Hits, _ texts: Texts, _ query: Query) -> Double {
        var bound = hits.nameFull ? 3.0 : 1.5 * Double(hits.nameWords)
        if texts.content != nil {
            bound +=
                hits.contentFull
                ? max(2.0, 0.5 * Double(hits.contentWords)) + Double(texts.stringValues.count)
                : 0.5 * Double(hits.contentWords)
        }
        if hits.nameFull && texts.name.count == query.scalars.count { bound *= 2 }
        return bound + (hits.fuzzy ? 1 : 0)
    }

    private func ranksBefore(
        _ lhs: (slot: Int32, score: Double), _ rhs: (slot: Int32, score: Double)
    ) -> Bool {
        if lhs.score != rhs.score { return lhs.score > rhs.score }
        return documents[Int(lhs.slot)].sequence < documents[Int(rhs.slot)].sequence
    }

    private func result(slot: Int32, score: Double, query: Query, fresh: Bool = false) -> Result {
        let document = documents[Int(slot)]
        let derived =
            fresh ? Self.texts(of: document) : (texts[Int(slot)] ?? Self.texts(of: document))
        var highlights: [String: [String]]? = [:]
        _ = Self.score(document, derived, query, fuzzy: false, highlights: &highlights)
        return Result(
            id: document.id, entityType: document.type, name: document.name ?? "", score: score,
            highlights: highlights ?? [:])
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

    /// Scores `slots` and keeps the best. `fuzzy`, when given, tells per slot whether its
    /// name can pass the 0.8 similarity bar (see `NameBigrams`); others skip the ratio.
    /// Highlights are built only for the results returned.
    private func rank(
        _ slots: [Int32], _ query: Query, types: Set<String>?, limit: Int, fuzzy: [Bool]?,
        fresh: Bool = false
    ) -> [Result] {
        guard limit > 0 else { return [] }
        var scored: [(Int32, Double)] = []
        var noHighlights: [String: [String]]? = nil
        for slot in slots {
            let document = documents[Int(slot)]
            if let types, !(document.type.map(types.contains) ?? false) { continue }
            let derived =
                fresh ? Self.texts(of: document) : (texts[Int(slot)] ?? Self.texts(of: document))
            let score = Self.score(
                document, derived, query, fuzzy: fuzzy?[Int(slot)] ?? true,
                highlights: &noHighlights)
            if score > 0 { scored.append((slot, score)) }
        }
        return best(scored, limit: limit).map {
            result(slot: $0.0, score: $0.1, query: query, fresh: fresh)
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
                        "\(value.key): \(String(String.UnicodeScalarView(value.original.unicodeScalars.prefix(50))))..."
                    )
                }
            }
            if !reasons.isEmpty { highlights?["content"] = reasons }
        }
        if texts.name == query.scalars { score *= 2.0 }
        if fuzzy {
            let similarity = query.matcher.ratio(texts.name)
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
