/// A query's candidates: which lists named each slot (`SearchIndex.Hits`), in a per-slot
/// array reused across queries, and the slots touched, so clearing costs what was marked.
/// A struct with mutating methods rather than closures over local arrays: captured arrays
/// are boxed, and every access through the box pays an exclusivity check.
struct CandidateMarks {
    /// What a query leaves for the next, all clear: the per-slot hits, and a bit per slot
    /// for the touched ones (so listing them in slot order reads a bit, not eight bytes,
    /// per slot).
    struct Scratch {
        var hits: [SearchIndex.Hits] = []
        var touchedBits: [UInt64] = []
    }

    private var hits: [SearchIndex.Hits]
    private var touchedBits: [UInt64]
    private(set) var touched: [Int32] = []

    /// Takes `scratch` (all clear) and grows it to `slots`.
    init(reusing scratch: Scratch, slots: Int) {
        hits = scratch.hits
        touchedBits = scratch.touchedBits
        if hits.count < slots {
            hits.append(contentsOf: repeatElement(SearchIndex.Hits(), count: slots - hits.count))
        }
        let words = (slots + 63) / 64
        if touchedBits.count < words {
            touchedBits.append(contentsOf: repeatElement(0, count: words - touchedBits.count))
        }
    }

    subscript(slot: Int32) -> SearchIndex.Hits { hits[Int(slot)] }

    /// Whether `slot` is marked, from the bits (which stay in cache).
    func isTouched(_ slot: Int32) -> Bool {
        let word = Int(UInt32(bitPattern: slot) >> 6)
        return word < touchedBits.count && (touchedBits[word] >> UInt64(slot & 63)) & 1 != 0
    }

    mutating func mark(_ slot: Int32, _ update: (inout SearchIndex.Hits) -> Void) {
        if !hits[Int(slot)].touched {
            hits[Int(slot)].touched = true
            touchedBits[Int(slot) >> 6] |= 1 << UInt64(slot & 63)
            touched.append(slot)
        }
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
        for (index, word) in touchedBits.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                ordered.append(Int32(index << 6 | bits.trailingZeroBitCount))
                bits &= bits &- 1
            }
        }
        return ordered
    }

    /// The scratch arrays, cleared, for the next query.
    /// Past a few hundred, cleared in slot order from the bits, as a stream.
    consuming func clearedScratch() -> Scratch {
        if touched.count > 256 {
            for index in touchedBits.indices where touchedBits[index] != 0 {
                var bits = touchedBits[index]
                while bits != 0 {
                    hits[index << 6 | bits.trailingZeroBitCount] = SearchIndex.Hits()
                    bits &= bits &- 1
                }
                touchedBits[index] = 0
            }
        } else {
            for slot in touched {
                hits[Int(slot)] = SearchIndex.Hits()
                touchedBits[Int(slot) >> 6] = 0
            }
        }
        return Scratch(hits: hits, touchedBits: touchedBits)
    }
}
