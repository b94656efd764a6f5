import CMemoryHints

/// An open-addressed hash table of 16-byte slots (a 64-bit key and a 64-bit value), for
/// compaction's pass 1, which looks up every record of the log. Swift's `Dictionary` costs
/// about 110 bytes per (record, column) entry there at its capacity and most of pass 1's time;
/// this table keeps exactly 16 bytes per slot, probes linearly within cache lines, and grows
/// by half (not doubling), so that past its first 1,024 slots it stays between 57 and 85
/// percent full: 19 to 28 bytes per entry.
///
/// The caller packs its key and value into the two words. A key may occur in several slots
/// when the caller's own `matches` test on the value tells them apart (hashed identities
/// whose 64-bit hashes collide). `UInt64.max` marks an empty slot and cannot be a key.
final class PackedHashTable {
    static let emptyKey = UInt64.max
    private static let loadMax = 0.85
    private static let growthFactor = 1.5

    private(set) var capacity: Int
    private(set) var count = 0
    /// Two words per slot: key, value.
    private var slots: UnsafeMutablePointer<UInt64>
    private var growAt: Int

    init(capacity requested: Int = 1024) {
        capacity = max(16, requested)
        slots = Self.allocate(capacity)
        growAt = Int(Double(capacity) * Self.loadMax)
    }

    deinit { slots.deallocate() }

    /// Bytes the slots take.
    var bytes: Int { capacity * 2 * MemoryLayout<UInt64>.stride }

    /// The slot holding `key` with a value `matches` accepts, or the empty slot where it
    /// would go (`found` false); hand that one to `insert` before any other insert.
    @inline(__always)
    func locate(_ key: UInt64, matching matches: (UInt64) -> Bool) -> (slot: Int, found: Bool) {
        var slot = home(key)
        while true {
            let current = slots[2 * slot]
            if current == Self.emptyKey { return (slot, false) }
            if current == key && matches(slots[2 * slot + 1]) { return (slot, true) }
            slot += 1
            if slot == capacity { slot = 0 }
        }
    }

    /// The slot holding `key` (for callers whose keys are unique), or an empty one.
    @inline(__always)
    func locate(_ key: UInt64) -> (slot: Int, found: Bool) {
        locate(key) { _ in true }
    }

    /// Starts loading the cache line where a lookup of `key` begins, so that a lookup made a
    /// little later finds it in cache (pass 1 looks ahead by a few records).
    @inline(__always)
    func prefetch(_ key: UInt64) {
        logbook_prefetch_for_write(slots + 2 * home(key))
    }

    @inline(__always)
    func value(at slot: Int) -> UInt64 { slots[2 * slot + 1] }

    @inline(__always)
    func key(at slot: Int) -> UInt64 { slots[2 * slot] }

    @inline(__always)
    func setValue(_ value: UInt64, at slot: Int) { slots[2 * slot + 1] = value }

    /// Fills the empty `slot` that `locate` returned for `key`.
    @inline(__always)
    func insert(_ key: UInt64, _ value: UInt64, at slot: Int) {
        precondition(key != Self.emptyKey, "the empty marker is not a key")
        slots[2 * slot] = key
        slots[2 * slot + 1] = value
        count += 1
        if count > growAt { grow() }
    }

    /// Calls `body` with every occupied slot's key and value.
    func forEach(_ body: (UInt64, UInt64) -> Void) {
        for slot in 0..<capacity where slots[2 * slot] != Self.emptyKey {
            body(slots[2 * slot], slots[2 * slot + 1])
        }
    }

    /// Fibonacci hashing onto `0..<capacity`: the multiply spreads every key bit into the
    /// high half, and the full-width product maps it without a division.
    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        let mixed = (key ^ (key >> 29)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed.multipliedFullWidth(by: UInt64(capacity)).high)
    }

    private func grow() {
        let oldSlots = slots
        let oldCapacity = capacity
        capacity = Int(Double(capacity) * Self.growthFactor)
        slots = Self.allocate(capacity)
        growAt = Int(Double(capacity) * Self.loadMax)
        for slot in 0..<oldCapacity where oldSlots[2 * slot] != Self.emptyKey {
            var target = home(oldSlots[2 * slot])
            while slots[2 * target] != Self.emptyKey {
                target += 1
                if target == capacity { target = 0 }
            }
            slots[2 * target] = oldSlots[2 * slot]
            slots[2 * target + 1] = oldSlots[2 * slot + 1]
        }
        oldSlots.deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt64> {
        let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: 2 * capacity)
        slots.initialize(repeating: emptyKey, count: 2 * capacity)
        return slots
    }
}
