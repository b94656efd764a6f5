import CMemoryHints

/// Finds a record's dense number from its id's hash: an open-addressed table of (hash,
/// number) slots, probed linearly, kept at most three quarters full.
///
/// `ReplicaState` hashes each id once with `KeyHash` and looks it up here instead of in a
/// `Dictionary<String, …>`, which would hash it again with SipHash. The table keeps no ids:
/// the caller confirms a candidate number by comparing the id it stored under it, so two ids
/// whose 64-bit hashes collide still get different numbers.
struct RecordIdTable {
    /// One slot: a full hash (kept so growing never rehashes an id), the number plus one,
    /// so that zero marks an empty slot, and where the record's columns were last seen
    /// (which a lookup starts loading as soon as it reads the slot).
    struct Slot {
        var hash: UInt64
        var numberPlusOne: Int
        var columns = ColumnsHint.none
    }

    private(set) var slots: ContiguousArray<Slot>
    private var mask: Int
    private(set) var count = 0

    init() {
        slots = ContiguousArray(repeating: Slot(hash: 0, numberPlusOne: 0), count: 1024)
        mask = slots.count - 1
    }

    /// The number stored for `hash` that `isRecord` confirms, or nil.
    @inline(__always)
    func number(forHash hash: UInt64, where isRecord: (Int) -> Bool) -> Int? {
        switch locate(hash, where: isRecord) {
        case .found(let number): return number
        case .vacant: return nil
        }
    }

    /// Stores `number` for `hash` in the vacant slot `locate` returned; no other insert may
    /// come between the two calls.
    @inline(__always)
    mutating func insert(_ number: Int, forHash hash: UInt64, at slot: Int) {
        slots[slot] = Slot(hash: hash, numberPlusOne: number + 1)
        count += 1
        if count * 4 > slots.count * 3 { grow() }
    }

    /// Removes the slot holding `number` (stored for `hash`), shifting the slots after it
    /// back where their probes allow, so every other lookup still ends where it did and no
    /// deleted marker is left behind. False when `number` is not stored.
    @discardableResult
    mutating func remove(_ number: Int, forHash hash: UInt64) -> Bool {
        var hole = Int(truncatingIfNeeded: hash) & mask
        while slots[hole].numberPlusOne != number + 1 {
            if slots[hole].numberPlusOne == 0 { return false }
            hole = (hole + 1) & mask
        }
        var next = (hole + 1) & mask
        while slots[next].numberPlusOne != 0 {
            let home = Int(truncatingIfNeeded: slots[next].hash) & mask
            // The slot at `next` may fill the hole when the hole lies on its probe path,
            // from its home up to `next`.
            if (next &- home) & mask >= (next &- hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(hash: 0, numberPlusOne: 0)
        count -= 1
        return true
    }

    /// Starts loading the cache line where a lookup of `hash` begins.
    @inline(__always)
    func prefetch(_ hash: UInt64) {
        slots.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            logbook_prefetch_for_write(base + Int(truncatingIfNeeded: hash) & mask)
        }
    }

    /// The number in the first slot of `hash`'s probe when that slot holds the same hash: a
    /// guess, for prefetching what the number leads to; never for deciding anything.
    @inline(__always)
    func likelyNumber(forHash hash: UInt64) -> Int? {
        let slot = slots[Int(truncatingIfNeeded: hash) & mask]
        return slot.numberPlusOne != 0 && slot.hash == hash ? slot.numberPlusOne - 1 : nil
    }

    /// Where a lookup ended: at the confirmed number, or at the vacant slot where a new
    /// number for the hash goes.
    enum Location {
        case found(Int)
        case vacant(Int)
    }

    /// Keeps `hint` in the slot holding `number` (stored for `hash`); nothing when the
    /// table does not hold it. Writes only a hint that changed, so that the line stays clean.
    @inline(__always)
    mutating func noteColumns(_ hint: ColumnsHint, of number: Int, forHash hash: UInt64) {
        guard let position = position(of: number, forHash: hash) else { return }
        if slots[position].columns != hint { slots[position].columns = hint }
    }

    /// The hint kept for `number` (stored for `hash`), nil when the table does not hold it.
    func columnsHint(of number: Int, forHash hash: UInt64) -> ColumnsHint? {
        position(of: number, forHash: hash).map { slots[$0].columns }
    }

    /// The slot holding `number` (stored for `hash`): found by the number alone, which the
    /// caller has already confirmed for its id.
    @inline(__always)
    private func position(of number: Int, forHash hash: UInt64) -> Int? {
        var position = Int(truncatingIfNeeded: hash) & mask
        while true {
            let held = slots[position].numberPlusOne
            if held == 0 { return nil }
            if held == number + 1 { return position }
            position = (position + 1) & mask
        }
    }

    /// Probes from `hash`'s home slot for a number `isRecord` confirms, starting to load the
    /// columns of each candidate before `isRecord` loads its entry.
    @inline(__always)
    func locate(_ hash: UInt64, where isRecord: (Int) -> Bool) -> Location {
        var position = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[position]
            if slot.numberPlusOne == 0 { return .vacant(position) }
            if slot.hash == hash {
                slot.columns.prefetch()
                if isRecord(slot.numberPlusOne - 1) { return .found(slot.numberPlusOne - 1) }
            }
            position = (position + 1) & mask
        }
    }

    private mutating func grow() {
        var grown = ContiguousArray(
            repeating: Slot(hash: 0, numberPlusOne: 0), count: slots.count * 2)
        let grownMask = grown.count - 1
        for slot in slots where slot.numberPlusOne != 0 {
            var position = Int(truncatingIfNeeded: slot.hash) & grownMask
            while grown[position].numberPlusOne != 0 { position = (position + 1) & grownMask }
            grown[position] = slot
        }
        slots = grown
        mask = grownMask
    }
}
