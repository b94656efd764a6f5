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
            mark(namePostings.candidates(containing: word) ?? []) { $0.nameWords &+= 1 }
            mark(contentPostings.candidates(containing: word) ?? []) { $0.contentWords &+= 1 }
        }
        for valueId in valuePostings.candidates(containing: parsed.scalars) ?? [] {
            let slot = valueOwners[Int(valueId)]
            guard valueId >= firstValueIds[Int(slot)] else { continue }  // a stale value
            mark([slot]) { $0.valueMatches &+= 1 }
        }

        var queue = BoundQueue()
        for slot in touched where facts[Int(slot)].indexed {
            if let types, !(documents[Int(slot)].type.map(types.contains) ?? false) { continue }
            queue.append(slot, bound: bound(slot, hits[Int(slot)], parsed, commonCharacters: nil))
        }
        queue.heapify()
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
            if !candidate.refined && mayBeSimilar(candidate.slot, parsed) {
                // Tighten the similarity term only for candidates that reach the front.
                let common = texts[Int(candidate.slot)].map { characters.common(with: $0.name) }
                let refined = bound(
                    candidate.slot, hits[Int(candidate.slot)], parsed, commonCharacters: common)
                queue.push(candidate.slot, bound: refined, refined: true)
                continue
            }
            guard let derived = texts[Int(candidate.slot)] else { continue }
            let score = Self.score(
                documents[Int(candidate.slot)].name, derived, parsed,
                fuzzy: mayBeSimilar(candidate.slot, parsed), highlights: &noHighlights)
            keep(candidate.slot, score, in: &top, limit: limit)
        }
        if top.count < limit || (top.last?.score ?? 0) <= 1 {
            for slot in nameBigrams.candidates(for: parsed.scalars)
            where !hits[Int(slot)].touched && facts[Int(slot)].indexed {
                if let types, !(documents[Int(slot)].type.map(types.contains) ?? false) { continue }
                guard let derived = texts[Int(slot)] else { continue }
                let score = Self.score(
                    documents[Int(slot)].name, derived, parsed, fuzzy: true,
                    highlights: &noHighlights)
                keep(slot, score, in: &top, limit: limit)
            }
        }
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
    private func mayBeSimilar(_ slot: Int32, _ query: Query) -> Bool {
        let length = Int(facts[Int(slot)].nameLength)
        let total = length + query.scalars.count
        return total > 0 && 2.0 * Double(min(length, query.scalars.count)) / Double(total) > 0.8
    }

    /// Which lists named an entity: the basis of its score bound (small: one per entity
    /// is allocated for every query).
    struct Hits {
        var touched = false
        var nameFull = false
        var contentFull = false
        var nameWords: UInt8 = 0
        var contentWords: UInt8 = 0
        var valueMatches: UInt16 = 0
    }

    /// The most an entity with these hits can score (see `score` for the terms): each list
    /// is a superset of the entities with that match, so every term is bounded from above.
    /// The similarity term is bounded by lengths alone (2·min(a, b) / (a + b)), or, given
    /// the characters name and query have in common, by difflib's quick_ratio.
    func bound(_ slot: Int32, _ hits: Hits, _ query: Query, commonCharacters: Int?) -> Double {
        let facts = facts[Int(slot)]
        var bound = hits.nameFull ? 3.0 : 1.5 * Double(hits.nameWords)
        if facts.hasContent {
            bound +=
                hits.contentFull
                ? max(2.0, 0.5 * Double(hits.contentWords)) : 0.5 * Double(hits.contentWords)
            bound += Double(min(hits.valueMatches, facts.stringValues))
        }
        if hits.nameFull && Int(facts.nameLength) == query.scalars.count { bound *= 2 }
        if mayBeSimilar(slot, query) {
            let lengths = Int(facts.nameLength) + query.scalars.count
            let common = commonCharacters ?? min(Int(facts.nameLength), query.scalars.count)
            let ceiling = 2.0 * Double(common) / Double(lengths)
            if ceiling > 0.8 { bound += ceiling }  // only a ratio above 0.8 is added
        }
        return bound
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
            if let types, !(document.type.map(types.contains) ?? false) { continue }
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
    static func score(
        _ name: String?, _ texts: Texts, _ query: Query, fuzzy: Bool,
        highlights: inout [String: [String]]?
    ) -> Double {
        var score = 0.0
        let name = name ?? ""
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

/// Candidates by decreasing score bound, ties by slot (insertion order): a binary heap, so
/// a query that stops after a few hundred candidates never sorts the rest.
struct BoundQueue {
    private var items: [(slot: Int32, bound: Double, refined: Bool)] = []

    mutating func append(_ slot: Int32, bound: Double) { items.append((slot, bound, false)) }

    /// Adds one item to a heapified queue.
    mutating func push(_ slot: Int32, bound: Double, refined: Bool) {
        items.append((slot, bound, refined))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(child, parent) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private func before(_ a: Int, _ b: Int) -> Bool {
        items[a].bound != items[b].bound
            ? items[a].bound > items[b].bound : items[a].slot < items[b].slot
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            var best = left
            if left + 1 < items.count && before(left + 1, left) { best = left + 1 }
            guard before(best, parent) else { return }
            items.swapAt(parent, best)
            parent = best
        }
    }

    mutating func heapify() {
        for index in stride(from: items.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    mutating func popBest() -> (slot: Int32, bound: Double, refined: Bool)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(0)
        }
        return first
    }
}

/// The query's characters as a multiset, to count how many of a name's characters it can
/// match (difflib's quick_ratio numerator) without allocating per name.
struct CharacterBudget {
    private var ascii = [Int32](repeating: 0, count: 128)
    private var other: [UInt32: Int32] = [:]
    private var spent: [UInt32] = []

    init(_ query: [UInt32]) {
        for scalar in query {
            if scalar < 128 { ascii[Int(scalar)] += 1 } else { other[scalar, default: 0] += 1 }
        }
    }

    /// Characters of `name` matched by distinct query characters.
    mutating func common(with name: [UInt32]) -> Int {
        for scalar in name {
            if scalar < 128 {
                guard ascii[Int(scalar)] > 0 else { continue }
                ascii[Int(scalar)] -= 1
            } else {
                guard let count = other[scalar], count > 0 else { continue }
                other[scalar] = count - 1
            }
            spent.append(scalar)
        }
        let matched = spent.count
        for scalar in spent {  // give the budget back for the next name
            if scalar < 128 { ascii[Int(scalar)] += 1 } else { other[scalar, default: 0] += 1 }
        }
        spent.removeAll(keepingCapacity: true)
        return matched
    }
}
