/// The full versions of the column changes pass 1 noted last, by offset, so that a tie
/// (`LiveSet`) is settled in memory when its winner was logged recently.
///
/// Ties come from concurrent writes to one column, and concurrent writes reach a log close
/// together: a node's own change and a peer's change made at the same time land a few
/// batches apart. Reading the winner back from the log costs a batch read and decode per
/// tie (about 150 µs); a slot here costs 32 bytes and one store per change. Slots are indexed by
/// offset, so an entry is found only while no later offset has taken its slot, and an older
/// winner is still read back.
struct RecentVersions {
    typealias Versions = (colVersion: UInt64, dbVersion: UInt64, nodeId: UInt64)

    private struct Entry {
        var offset: UInt64
        var versions: Versions
    }

    /// A power of two, so the slot is the offset's low bits.
    private let slotMask: UInt64
    private var entries: [Entry]

    /// The most slots kept, whatever is asked: 2^24 (512 MiB).
    static let capacityMax = 1 << 24

    /// Remembers about the last `capacity` offsets (rounded up to a power of two, at most
    /// `capacityMax`; 0 or less for none).
    init(capacity: Int) {
        let wanted = min(capacity, Self.capacityMax)
        var slots = wanted > 0 ? 1 : 0
        while slots < wanted { slots <<= 1 }
        slotMask = UInt64(max(0, slots - 1))
        // No offset is UInt64.max (offsets are below 2^40 in pass 1): marks a free slot.
        entries = [Entry](repeating: Entry(offset: .max, versions: (0, 0, 0)), count: slots)
    }

    mutating func note(_ versions: Versions, at offset: UInt64) {
        guard !entries.isEmpty else { return }
        entries[Int(truncatingIfNeeded: offset & slotMask)] = Entry(
            offset: offset, versions: versions)
    }

    /// The versions of the change at `offset`, when it is still remembered.
    func versions(at offset: UInt64) -> Versions? {
        guard !entries.isEmpty else { return nil }
        let entry = entries[Int(truncatingIfNeeded: offset & slotMask)]
        return entry.offset == offset ? entry.versions : nil
    }

    /// Bytes the slots take.
    var bytes: Int { entries.count * MemoryLayout<Entry>.stride }
}
