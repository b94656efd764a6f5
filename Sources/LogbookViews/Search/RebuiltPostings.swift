import Foundation

/// A search index's posting lists built from every live document's texts at once, on two
/// threads: the content's n-grams (the longest texts, about half the work) on one, the
/// names', the string values', the name bigrams and BM25 on the other. Each structure gets
/// the documents in slot order, so it is the one adding them one at a time would build.
struct RebuiltPostings: Sendable {
    var names = GramPostings()
    var content = GramPostings()
    var values = GramPostings()
    var bigrams = NameBigrams()
    var bm25 = BM25Index()

    static func build(
        _ alive: [Int32], texts: [SearchIndex.Texts?], firstValueIds: [Int32]
    ) -> RebuiltPostings {
        let halves = BuiltHalves()
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            var built = RebuiltPostings()
            for slot in alive {
                guard let derived = texts[Int(slot)] else { continue }
                if half == 0 {
                    built.content.add(slot, text: derived.content ?? [])
                    continue
                }
                addNamesValuesAndTerms(
                    slot, derived, firstValueId: firstValueIds[Int(slot)], names: &built.names,
                    values: &built.values, bigrams: &built.bigrams, bm25: &built.bm25)
            }
            halves.store(built, half: half)
        }
        return halves.joined()
    }

    /// Everything but the content's n-grams for one document: one-at-a-time indexing
    /// (`SearchIndex.index`) and the rebuild's second thread both add through here.
    static func addNamesValuesAndTerms(
        _ slot: Int32, _ derived: SearchIndex.Texts, firstValueId: Int32,
        names: inout GramPostings, values: inout GramPostings, bigrams: inout NameBigrams,
        bm25: inout BM25Index
    ) {
        names.add(slot, text: derived.name)
        bigrams.add(slot, name: derived.name)
        for (offset, value) in derived.stringValues.enumerated() {
            values.add(firstValueId + Int32(offset), text: value.lowered)
        }
        bm25.add(slot, tokens: SearchIndex.tokens(derived))
    }
}

/// The two threads' halves, stored under a lock and joined once both have run.
private final class BuiltHalves: @unchecked Sendable {
    // @unchecked: `halves` is guarded by `lock`.
    private let lock = NSLock()
    private var halves: [RebuiltPostings?] = [nil, nil]

    func store(_ built: RebuiltPostings, half: Int) {
        lock.withLock { halves[half] = built }
    }

    func joined() -> RebuiltPostings {
        lock.withLock {
            var joined = halves[1] ?? RebuiltPostings()
            joined.content = halves[0]?.content ?? GramPostings()
            return joined
        }
    }
}
