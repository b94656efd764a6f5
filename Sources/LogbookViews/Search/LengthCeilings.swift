extension SearchIndex {
    /// Per name length, the most the similarity term can add for one query when lengths
    /// alone are known (every character of the shorter text shared; 0 where lengths rule
    /// a ratio above 0.8 out): built once per query, so the loop over thousands of
    /// candidates divides nothing.
    struct LengthCeilings {
        private let ceilings: [Double]
        private let queryLength: Int

        /// Lengths past the table are computed when asked (a ratio can pass 0.8 only
        /// below 1.5 times the query's length, so the table stays small for real queries).
        init(queryLength: Int) {
            self.queryLength = queryLength
            let longest = min(queryLength + queryLength / 2 + 2, 1024)
            ceilings = (0...longest).map { Self.ceiling(Int32($0), queryLength: queryLength) }
        }

        subscript(nameLength: Int32) -> Double {
            nameLength >= 0 && Int(nameLength) < ceilings.count
                ? ceilings[Int(nameLength)] : Self.ceiling(nameLength, queryLength: queryLength)
        }

        private static func ceiling(_ nameLength: Int32, queryLength: Int) -> Double {
            let facts = SlotFacts(indexed: true, nameLength: nameLength)
            guard facts.mayBeSimilar(queryLength: queryLength) else { return 0 }
            return facts.similarityCeiling(
                queryLength: queryLength, common: min(Int(nameLength), queryLength))
        }
    }
}
