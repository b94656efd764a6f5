/// One gram's posting list: its documents (sorted once `GramPostings.normalize()` ran) and,
/// once the list is dense, the same documents as a bitmap. Intersecting a dense list with
/// a shorter one then tests a bit per slot of the shorter, where a merge or a gallop
/// walked the dense list (a cache miss per probe for long lists: 88 µs for 4,187 slots
/// against 75,424 in "smart light"'s content lists).
struct GramList {
    private(set) var slots: [Int32] = []
    /// A bit per document id up to the largest added; empty while the list is sparse.
    private var bits = SlotBitmap()

    /// A bitmap is considered every this many appends, past the first such count.
    private static let bitmapCheckInterval = 1024

    init() {}

    /// A list without a bitmap (a computed intersection).
    init(slots: [Int32]) { self.slots = slots }

    var count: Int { slots.count }
    var hasBitmap: Bool { !bits.isUnallocated }

    mutating func append(_ document: Int32) {
        slots.append(document)
        if !bits.isUnallocated {
            bits.insert(document)
        } else if slots.count % Self.bitmapCheckInterval == 0 {
            considerBitmap()
        }
    }

    /// Sorts the slots and drops repeats (the bitmap holds the same set either way).
    mutating func normalize() {
        slots.sort()
        var kept = 0
        for index in slots.indices where index == 0 || slots[index] != slots[index - 1] {
            slots[kept] = slots[index]
            kept += 1
        }
        slots.removeLast(slots.count - kept)
    }

    /// The slots of `sorted` this list holds, in their order; needs the bitmap.
    func filter(_ sorted: [Int32]) -> [Int32] { bits.filter(sorted) }

    /// Builds the bitmap when it is no larger than the slots (a slot costs 32 bits, so
    /// when the list holds at least one document in 32 of the ids it spans).
    private mutating func considerBitmap() {
        guard let largest = slots.max(), largest >= 0 else { return }
        guard slots.count * 32 >= Int(largest) + 1 else { return }
        bits = SlotBitmap(slots, largest: largest)
    }
}
