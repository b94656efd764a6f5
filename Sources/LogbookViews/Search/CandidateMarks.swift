/// A query's candidates: which lists named each slot (`SearchIndex.Hits`), in a per-slot
/// array reused across queries, and the slots touched, so clearing costs what was marked.
/// A struct with mutating methods rather than closures over local arrays: captured arrays
/// are boxed, and every access through the box pays an exclusivity check.
struct CandidateMarks {
    private var hits: [SearchIndex.Hits]
    private(set) var touched: [Int32] = []

    /// Takes `scratch` (all clear) and grows it to `slots`.
    init(reusing scratch: [SearchIndex.Hits], slots: Int) {
        hits = scratch
        if hits.count < slots {
            hits.append(contentsOf: repeatElement(SearchIndex.Hits(), count: slots - hits.count))
        }
    }

    subscript(slot: Int32) -> SearchIndex.Hits { hits[Int(slot)] }

    mutating func mark(_ slot: Int32, _ update: (inout SearchIndex.Hits) -> Void) {
        if !hits[Int(slot)].touched {
            hits[Int(slot)].touched = true
            touched.append(slot)
        }
        update(&hits[Int(slot)])
    }

    mutating func mark(_ slots: [Int32], _ update: (inout SearchIndex.Hits) -> Void) {
        for slot in slots { mark(slot, update) }
    }

    /// The touched slots in slot order: the per-slot arrays a caller reads for each are
    /// then read as streams, not at random.
    func touchedInSlotOrder() -> [Int32] {
        guard touched.count > hits.count / 8 else { return touched.sorted() }
        var ordered: [Int32] = []
        ordered.reserveCapacity(touched.count)
        for slot in hits.indices where hits[slot].touched { ordered.append(Int32(slot)) }
        return ordered
    }

    /// The scratch array, cleared, for the next query.
    consuming func clearedScratch() -> [SearchIndex.Hits] {
        for slot in touched { hits[Int(slot)] = SearchIndex.Hits() }
        return hits
    }
}
