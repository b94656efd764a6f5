/// A query's candidates: which lists named each slot (`SearchIndex.Hits`), in a per-slot
/// array reused across queries, and the slots touched, so clearing costs what was marked.
/// A struct with mutating methods rather than closures over local arrays: captured arrays
/// are boxed, and every access through the box pays an exclusivity check.
struct CandidateMarks {
    /// What a query leaves for the next, all clear: the per-slot hits, and a bit per slot
    /// for the touched ones (so testing or listing them in slot order reads a bit, not a
    /// hit, per slot).
    struct Scratch {
        var hits: [SearchIndex.Hits] = []
        var touchedBits = SlotBitmap()
    }

    private var hits: [SearchIndex.Hits]
    private var touchedBits: SlotBitmap
    private(set) var touched: [Int32] = []

    /// Takes `scratch` (all clear) and grows it to `slots`.
    init(reusing scratch: Scratch, slots: Int) {
        hits = scratch.hits
        touchedBits = scratch.touchedBits
        if hits.count < slots {
            hits.append(contentsOf: Array(repeating: SearchIndex.Hits(), count: slots - hits.count))
        }
        touchedBits.reserve(covering: slots)
    }

    subscript(slot: Int32) -> SearchIndex.Hits { hits[Int(slot)] }

    /// Whether `slot` is marked, from the bits (which stay in cache).
    func isTouched(_ slot: Int32) -> Bool { touchedBits.contains(slot) }

    mutating func mark(_ slot: Int32, _ update: (inout SearchIndex.Hits) -> Void) {
        if touchedBits.inserting(reserved: slot) { touched.append(slot) }
        update(&hits[Int(slot)])
    }

    mutating func mark(_ slots: [Int32], _ update: (inout SearchIndex.Hits) -> Void) {
        for slot in slots { mark(slot, update) }
    }

    /// Updates the slots of `slots` already marked; the others stay unmarked.
    /// The bits are read, not the hits: a list of a third of the corpus then reads a few
    /// KiB that stay in cache instead of a hit per slot.
    mutating func markTouched(_ slots: [Int32], _ update: (inout SearchIndex.Hits) -> Void) {
        for slot in slots where isTouched(slot) { update(&hits[Int(slot)]) }
    }

    /// The touched slots in slot order: the per-slot arrays a caller reads for each are
    /// then read as streams, not at random. Past a few hundred, from the bits.
    func touchedInSlotOrder() -> [Int32] {
        guard touched.count > 256 else { return touched.sorted() }
        var ordered: [Int32] = []
        ordered.reserveCapacity(touched.count)
        ordered.append(contentsOf: touchedBits)
        return ordered
    }

    /// The scratch arrays, cleared, for the next query.
    /// Past a few hundred, cleared in slot order from the bits, as a stream.
    consuming func clearedScratch() -> Scratch {
        if touched.count > 256 {
            for slot in touchedBits { hits[Int(slot)] = SearchIndex.Hits() }
            touchedBits.removeAll()
        } else {
            for slot in touched {
                hits[Int(slot)] = SearchIndex.Hits()
                touchedBits.removeWord(holding: slot)
            }
        }
        return Scratch(hits: hits, touchedBits: touchedBits)
    }
}
