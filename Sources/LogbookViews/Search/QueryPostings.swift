/// A query's candidates from the name and content n-gram postings: for the whole query and,
/// when it has several words, for each word (the lists search marks and bounds from).
struct QueryPostings {
    var nameFull: [Int32]
    var contentFull: [Int32]
    /// Per word, empty for a query of one word (its word's lists are the full lists).
    var nameWords: [[Int32]] = []
    var contentWords: [[Int32]] = []

    /// The lists of a non-empty query. The words' lists come first: the whole query's are
    /// their intersection narrowed by the grams spanning whitespace, which spares merging
    /// every gram of the query again (with `GramList`'s bitmaps, "living room speaker"'s
    /// lists went from 220 to 81 µs).
    init(_ query: SearchIndex.Query, names: GramPostings, content: GramPostings) {
        let oneWord = query.words.count == 1 && query.words[0] == query.scalars
        guard !oneWord && !query.words.isEmpty else {
            nameFull = names.candidates(containing: query.scalars) ?? []
            contentFull = content.candidates(containing: query.scalars) ?? []
            return
        }
        nameWords = query.words.map { names.candidates(containing: $0) ?? [] }
        contentWords = query.words.map { content.candidates(containing: $0) ?? [] }
        nameFull = names.candidates(containing: query.scalars, givenWords: nameWords)
        contentFull = content.candidates(containing: query.scalars, givenWords: contentWords)
    }
}
