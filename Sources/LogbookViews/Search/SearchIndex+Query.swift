/// Queries: The Goodies' ranking from the indexes, and the same ranking by scanning (the
/// reference the indexed answer is tested against).
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
        /// For bounding the characters a name has in common with the query.
        var histogram: CharacterHistogram

        init(_ query: String) {
            original = query
            text = query.lowercased()
            scalars = SearchIndex.scalars(text)
            words = text.unicodeScalars.split { $0.properties.isWhitespace }.map {
                $0.map(\.value)
            }
            matcher = SequenceMatcher.Prepared(scalars)
            histogram = CharacterHistogram(scalars)
        }
    }

    /// The Goodies' search: entities scoring above 0, best first, ties in insertion order,
    /// at most `limit`, optionally only of `types`.
    ///
    /// Candidates come from the n-gram postings (which entities may contain the query or
    /// one of its words, in the name or the content). From the same lists each candidate
    /// gets an upper bound on its score; candidates are scored exactly in decreasing bound
    /// order, stopping once no remaining bound can reach the `limit`-th best score — so a
    /// query matching half the corpus still scores few entities. Entities that only the
    /// fuzzy bonus could lift score at most 1, so their candidates (`NameBigrams`) are
    /// looked up only when the results are not full or the last one scores 1 or less.
    public func search(_ query: String, types: Set<String>? = nil, limit: Int = 10) -> [Result] {
        lock.lock()
        defer { lock.unlock() }
        flushDirty()
        guard limit > 0 else { return [] }
        let parsed = Query(query)
        guard !parsed.scalars.isEmpty else {
            // An empty query is a substring of every name: everything matches.
            let all = documents.indices.filter { documents[$0].alive }.map { Int32($0) }
            return rank(all, parsed, types: types, limit: limit, fuzzy: nil)
        }
        var (queue, marks) = boundedCandidates(
            parsed, QueryPostings(parsed, names: namePostings, content: contentPostings),
            types: types, limit: limit)
        var characters = CharacterBudget(parsed.scalars)
        var top: [(slot: Int32, score: Double)] = []
        var noHighlights: [String: [String]]? = nil
        while let candidate = queue.popBest() {
            if top.count == limit, let last = top.last,
                candidate.bound < last.score
                    || (candidate.bound == last.score && candidate.slot > last.slot)
            {
                break  // nothing left can outrank the last kept result
            }
            if !candidate.refined {
                // Count the common characters exactly, and look for the query in the name,
                // only for candidates that reach the front with a similarity term the
                // histograms could not rule out or a name term the lists could not settle.
                let derived = texts[Int(candidate.slot)]
                let common = derived.map { characters.common(with: $0.name) }
                let facts = facts[Int(candidate.slot)]
                let hits = marks[candidate.slot]
                let holds =
                    facts.nameTermIsUncertain(hits)
                    ? derived.map { Self.contains($0.name, parsed.scalars) } : nil
                let refined =
                    facts.bound(hits, queryLength: parsed.scalars.count, nameHoldsQuery: holds)
                    + (common.map {
                        facts.similarityCeiling(queryLength: parsed.scalars.count, common: $0)
                    } ?? 0)
                queue.push(candidate.slot, bound: refined, refined: true)
                continue
            }
            guard let derived = texts[Int(candidate.slot)] else { continue }
            let score = Self.score(
                documents[Int(candidate.slot)].name, derived, parsed,
                fuzzy: mayBeSimilar(candidate.slot, parsed), highlights: &noHighlights,
                lists: marks[candidate.slot])
            keep(candidate.slot, score, in: &top, limit: limit)
        }
        if top.count < limit || (top.last?.score ?? 0) <= 1 {
            for slot in nameBigrams.candidates(for: parsed.scalars)
            where !marks.isTouched(slot) && facts[Int(slot)].indexed {
                if let types, !documents[Int(slot)].passes(types) { continue }
                guard let derived = texts[Int(slot)] else { continue }
                let score = Self.score(
                    documents[Int(slot)].name, derived, parsed, fuzzy: true,
                    highlights: &noHighlights)
                keep(slot, score, in: &top, limit: limit)
            }
        }
        scratchMarks = marks.clearedScratch()
        return top.map { result(slot: $0.slot, score: $0.score, query: parsed) }
    }

    /// Inserts a positive score into the ranked `top`, keeping at most `limit`.
    func keep(
        _ slot: Int32, _ score: Double, in top: inout [(slot: Int32, score: Double)], limit: Int
    ) {
        guard score > 0 else { return }
        let entry = (slot: slot, score: score)
        let position = top.firstIndex { ranksBefore(entry, $0) } ?? top.endIndex
        if position < limit {
            top.insert(entry, at: position)
            if top.count > limit { top.removeLast() }
        }
    }

    /// Whether lengths alone allow the name a similarity above 0.8 (2·min / sum).
    func mayBeSimilar(_ slot: Int32, _ query: Query) -> Bool {
        facts[Int(slot)].mayBeSimilar(queryLength: query.scalars.count)
    }

    /// Which lists named an entity: the basis of its score bound (small: one per entity
    /// is allocated for every query). The counts saturate: a saturated count means "this
    /// many or more", and bounds nothing (`SlotFacts.bound`).
    struct Hits {
        var nameFull = false
        var contentFull = false
        var nameWords: UInt8 = 0
        var contentWords: UInt8 = 0
        var valueMatches: UInt16 = 0

        mutating func countNameWord() { if nameWords < .max { nameWords += 1 } }
        mutating func countContentWord() { if contentWords < .max { contentWords += 1 } }
        mutating func countValueMatch() { if valueMatches < .max { valueMatches += 1 } }
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
        _ = Self.score(document.name, derived, query, fuzzy: false, highlights: &highlights)
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
            if let types, !document.passes(types) { continue }
            let derived =
                fresh ? Self.texts(of: document) : (texts[Int(slot)] ?? Self.texts(of: document))
            let score = Self.score(
                document.name, derived, query, fuzzy: fuzzy?[Int(slot)] ?? true,
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
    ///
    /// `lists`, when given, are the entity's complete marks (every list of the query
    /// applied): a text that no list named cannot hold what that list stands for (the lists
    /// are supersets), so its scan is skipped. For "thermostatt", whose 439 candidates hold
    /// its grams but not the word, that leaves one short name scan of each.
    static func score(
        _ name: String?, _ texts: Texts, _ query: Query, fuzzy: Bool,
        highlights: inout [String: [String]]?, lists: Hits? = nil
    ) -> Double {
        var score = 0.0
        let name = name ?? ""
        // What the lists leave possible (everything without them).
        let nameMayHoldQuery = lists?.nameFull ?? true
        let nameMayHoldWords = lists.map { $0.nameWords > 0 } ?? true
        let contentMayHoldQuery = lists?.contentFull ?? true
        let contentMayHoldWords = lists.map { $0.contentWords > 0 } ?? true
        let valuesMayHoldQuery = lists.map { $0.valueMatches > 0 } ?? true
        if nameMayHoldQuery && contains(texts.name, query.scalars) {
            score += 3.0
            highlights?["name"] = [name]
        } else if nameMayHoldWords {
            let matches = query.words.filter { contains(texts.name, $0) }.count
            if matches > 0 {
                score += 1.5 * Double(matches)
                highlights?["name"] = [name]
            }
        }
        if let content = texts.content {
            var reasons: [String] = []
            let explain = highlights != nil
            if contentMayHoldQuery && contains(content, query.scalars) {
                score += 2.0
                if explain { reasons.append("Content contains '\(query.original)'") }
            } else if contentMayHoldWords {
                let matches = query.words.filter { contains(content, $0) }.count
                if matches > 0 {
                    score += 0.5 * Double(matches)
                    if explain { reasons.append("Content matches \(matches) word(s)") }
                }
            }
            for value in texts.stringValues
            where valuesMayHoldQuery && contains(value.lowered, query.scalars) {
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
