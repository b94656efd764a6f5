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
        /// that match, so every term is bounded from above.
        func bound(_ hits: Hits, queryLength: Int) -> Double {
            var bound = hits.nameFull ? 3.0 : 1.5 * Double(hits.nameWords)
            if hasContent {
                bound +=
                    hits.contentFull
                    ? max(2.0, 0.5 * Double(hits.contentWords)) : 0.5 * Double(hits.contentWords)
                bound += Double(min(hits.valueMatches, stringValues))
            }
            if hits.nameFull && Int(nameLength) == queryLength { bound *= 2 }
            return bound
        }

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
