/// A set of slots as a bit per slot, up to the largest inserted: membership is one load,
/// where a sorted list needs a search. 12.5 KiB covers 100 k entities.
struct SlotBitmap {
    private var words: [UInt64] = []

    init() {}

    init(_ slots: [Int32]) {
        self.init(slots, largest: slots.max() ?? -1)
    }

    /// `largest`: the largest of `slots`, when the caller has it (spares a pass); slots
    /// above it are left out.
    init(_ slots: [Int32], largest: Int32) {
        guard largest >= 0 else { return }
        let count = Int(largest) / 64 + 1
        // Through the buffer: a write through the array checks its uniqueness each time.
        words = [UInt64](unsafeUninitializedCapacity: count) { words, initialized in
            words.initialize(repeating: 0)
            for slot in slots where slot >= 0 && Int(slot) / 64 < count {
                words[Int(slot) / 64] |= 1 << UInt64(slot % 64)
            }
            initialized = count
        }
    }

    var isEmpty: Bool { words.isEmpty }

    /// Adds `slot` (a negative one is ignored), growing by an eighth at least.
    mutating func insert(_ slot: Int32) {
        guard slot >= 0 else { return }
        let word = Int(slot) / 64
        if word >= words.count {
            words.append(
                contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count / 8)))
        }
        words[word] |= 1 << UInt64(slot % 64)
    }

    func contains(_ slot: Int32) -> Bool {
        // A negative slot becomes a word past the end: not held.
        let word = Int(UInt32(bitPattern: slot) >> 6)
        return word < words.count && (words[word] >> UInt64(slot & 63)) & 1 != 0
    }

    /// The slots of `sorted` held here, in their order, without a branch per slot.
    func filter(_ sorted: [Int32]) -> [Int32] {
        [Int32](unsafeUninitializedCapacity: sorted.count) { result, resultCount in
            words.withUnsafeBufferPointer { words in
                var kept = 0
                for slot in sorted {
                    // kept never passes the slots read: always within the result.
                    result[kept] = slot
                    let word = Int(UInt32(bitPattern: slot) >> 6)
                    let held = word < words.count ? (words[word] >> UInt64(slot & 63)) & 1 : 0
                    kept &+= Int(held)
                }
                resultCount = kept
            }
        }
    }
}
