import CMemoryHints

/// Where a record's columns lay when a local write last left them, kept by the id table
/// beside the slot of the record's number: a local write's lookup that reads the slot
/// starts loading the columns at once, while it loads the entry, instead of only once the
/// entry has said where they are.
///
/// Why: a one-call write to a record not in the cache waits for three misses in a row (the
/// table slot, the entry, the columns). With the columns' load started from the slot, the
/// last two overlap: the replica's one-call writes ran about a fifth faster (docs/
/// benchmarks.md, session 49).
///
/// Only ever prefetched, never read through: a stale hint (a merge or a write that moved the
/// columns since, a record deleted and its memory reused) costs a wasted prefetch, which
/// cannot fault, and the next local write to the record corrects it.
struct ColumnsHint: Equatable {
    /// The address in the low 48 bits (a user-space address on the platforms this runs on;
    /// one that does not fit only makes the hint useless), the bytes to load above them.
    private(set) var raw: UInt

    /// No hint: nothing is loaded.
    static let none = ColumnsHint(raw: 0)

    /// The most bytes of a record's columns loaded ahead, by a hint or by a merge's own
    /// prefetching: eight cache lines, about seven columns; the search of a wider record goes
    /// on with the hardware's own prefetching.
    static let bytesMax = 512

    /// The bytes of a contiguous array's storage before its first element, where its count
    /// lies (metadata, reference count, count, capacity), on 64-bit platforms.
    static let arrayHeaderBytes = 32

    private static let addressMask: UInt = 0xFFFF_FFFF_FFFF

    private init(raw: UInt) { self.raw = raw }

    /// The hint for columns stored in `columns`, the elements of a contiguous array: its
    /// header and elements, up to `bytesMax` bytes.
    @inline(__always)
    init(of columns: UnsafeRawBufferPointer) {
        guard let base = columns.baseAddress, !columns.isEmpty else {
            self = .none
            return
        }
        let start = UInt(bitPattern: base - Self.arrayHeaderBytes)
        let bytes = UInt(min(columns.count + Self.arrayHeaderBytes, Self.bytesMax))
        raw = (start & Self.addressMask) | bytes << 48
    }

    /// The address the hint starts at, nil for none.
    var address: UInt? { raw == 0 ? nil : raw & Self.addressMask }

    /// How many bytes the hint loads.
    var byteCount: Int { Int(raw >> 48) }

    /// Starts loading the hinted bytes for a coming write, without waiting for them.
    @inline(__always)
    func prefetch() {
        guard let address = UnsafeRawPointer(bitPattern: raw & Self.addressMask) else { return }
        logbook_prefetch_range_for_write(address, byteCount)
    }
}
