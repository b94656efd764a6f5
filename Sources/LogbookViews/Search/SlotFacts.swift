extension SearchIndex {
    /// The facts a score bound needs, eight bytes per slot, and the bounds themselves.
    struct SlotFacts {
        var indexed = false
        var hasContent = false
        var nameLength: Int32 = 0
        var stringValues: UInt16 = 0

        /// Whether lengths alone allow the name a similarity above 0.8 (2·min / sum).
        func mayBeSimilar(queryLength: Int) -> Bool {
            let length = Int(nameLength)
            let total = length + queryLength
            return total > 0 && 2.0 * Double(min(length, queryLength)) / Double(total) > 0.8
        }

        /// The most an entity with these hits can score without the similarity term (see
        /// `SearchIndex.score` for the terms): each list is a superset of the entities with
        /// that match, so every term is bounded from above. `nameHoldsQuery`, when known,
        /// settles the name's term (see `nameTermIsUncertain`).
        func bound(_ hits: Hits, queryLength: Int, nameHoldsQuery: Bool? = nil) -> Double {
            // A saturated count (a query of hundreds of words) may stand for any more.
            guard hits.nameWords < .max && hits.contentWords < .max && hits.valueMatches < .max
            else { return .infinity }
            let words = 1.5 * Double(hits.nameWords)
            var bound: Double
            switch (hits.nameFull, nameHoldsQuery) {
            case (true, true?): bound = 3
            case (true, nil): bound = max(3, words)
            default: bound = words
            }
            if hasContent {
                bound +=
                    hits.contentFull
                    ? max(2.0, 0.5 * Double(hits.contentWords)) : 0.5 * Double(hits.contentWords)
                bound += Double(min(hits.valueMatches, stringValues))
            }
            if hits.nameFull && nameHoldsQuery != false && Int(nameLength) == queryLength {
                bound *= 2
            }
            return bound
        }

        /// Whether the name's term of the bound is the larger of two cases the lists cannot
        /// tell apart. The lists are supersets: a name on the full query's list may hold all
        /// its grams and not the query (all of "living lamp living" is in "living lamp lamp
        /// living"), and then scores its words instead, more than 3 from three words on. The
        /// name itself tells which (search looks when the candidate reaches the front).
        func nameTermIsUncertain(_ hits: Hits) -> Bool { hits.nameFull && hits.nameWords > 2 }

        /// The most the similarity term can add given at most `common` characters shared
        /// with the query: difflib's quick_ratio bound 2·common / (a + b), or 0 when that
        /// cannot pass 0.8 (only a ratio above 0.8 is added). Call only when
        /// `mayBeSimilar`.
        func similarityCeiling(queryLength: Int, common: Int) -> Double {
            let ceiling = 2.0 * Double(common) / Double(Int(nameLength) + queryLength)
            return ceiling > 0.8 ? ceiling : 0
        }
    }
}
