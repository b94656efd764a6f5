import CMemoryHints

/// Finds a record's dense number from its id's hash: an open-addressed table of (hash,
/// number) slots, probed linearly, kept at most three quarters full.
///
/// `ReplicaState` hashes each id once with `KeyHash` and looks it up here instead of in a
/// `Dictionary<String, …>`, which would hash it again with SipHash. The table keeps no ids:
/// the caller confirms a candidate number by comparing the id it stored under it, so two ids
/// whose 64-bit hashes collide still get different numbers.
///
/// Beside each slot, in an array of their own, it keeps where the record's columns were
/// last seen (`ColumnsHint`), which a local write's lookup starts loading as soon as it
/// reads the slot. Apart so that merges, which prefetch the slots themselves and use no
/// hints, keep 16-byte slots: held in the slots, the hints made merges 8 % slower.
struct RecordIdTable {
    /// One slot: a full hash (kept so growing never rehashes an id) and the number plus one,
    /// so that zero marks an empty slot.
    struct Slot {
        var hash: UInt64
        var numberPlusOne: Int
    }

    private(set) var slots: ContiguousArray<Slot>
    /// The columns hint of the slot at the same position, moved with it.
    private var columnsHints: ContiguousArray<ColumnsHint>
    private var mask: Int
    private(set) var count = 0

    init() {
        slots = ContiguousArray(repeating: Slot(hash: 0, numberPlusOne: 0), count: 1024)
        columnsHints = ContiguousArray(repeating: .none, count: slots.count)
        mask = slots.count - 1
    }

    /// The number stored for `hash` that `isRecord` confirms, or nil.
    @inline(__always)
    func number(
        forHash hash: UInt64, prefetchingColumns: Bool = false, where isRecord: (Int) -> Bool
    ) -> Int? {
        switch locate(hash, prefetchingColumns: prefetchingColumns, where: isRecord) {
        case .found(let number): return number
        case .vacant: return nil
        }
    }

    /// Stores `number` for `hash` in the vacant slot `locate` returned; no other insert may
    /// come between the two calls.
    @inline(__always)
    mutating func insert(_ number: Int, forHash hash: UInt64, at slot: Int) {
        // The slot's hint is `.none` already: every vacant slot's is (`remove` clears the
        // hole's, `grow` moves only the held ones').
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
                columnsHints[hole] = columnsHints[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(hash: 0, numberPlusOne: 0)
        columnsHints[hole] = .none
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

    /// Keeps `hint` for `number` (stored for `hash`); nothing when the table does not hold
    /// it. Writes only a hint that changed, so that its line stays clean.
    @inline(__always)
    mutating func noteColumns(_ hint: ColumnsHint, of number: Int, forHash hash: UInt64) {
        guard let position = position(of: number, forHash: hash) else { return }
        if columnsHints[position] != hint { columnsHints[position] = hint }
    }

    /// The hint kept for `number` (stored for `hash`), nil when the table does not hold it.
    func columnsHint(of number: Int, forHash hash: UInt64) -> ColumnsHint? {
        position(of: number, forHash: hash).map { columnsHints[$0] }
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

    /// Probes from `hash`'s home slot for a number `isRecord` confirms. When
    /// `prefetchingColumns` (a constant at each call: a local write's lookup), starts loading
    /// the columns hinted for each candidate before `isRecord` loads its entry.
    @inline(__always)
    func locate(
        _ hash: UInt64, prefetchingColumns: Bool = false, where isRecord: (Int) -> Bool
    ) -> Location {
        var position = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[position]
            if slot.numberPlusOne == 0 { return .vacant(position) }
            if slot.hash == hash {
                if prefetchingColumns { columnsHints[position].prefetch() }
                if isRecord(slot.numberPlusOne - 1) { return .found(slot.numberPlusOne - 1) }
            }
            position = (position + 1) & mask
        }
    }

    private mutating func grow() {
        var grown = ContiguousArray(
            repeating: Slot(hash: 0, numberPlusOne: 0), count: slots.count * 2)
        var grownHints = ContiguousArray(repeating: ColumnsHint.none, count: grown.count)
        let grownMask = grown.count - 1
        for (old, slot) in slots.enumerated() where slot.numberPlusOne != 0 {
            var position = Int(truncatingIfNeeded: slot.hash) & grownMask
            while grown[position].numberPlusOne != 0 { position = (position + 1) & grownMask }
            grown[position] = slot
            grownHints[position] = columnsHints[old]
        }
        slots = grown
        columnsHints = grownHints
        mask = grownMask
    }
}
