/// Short strings a decoder built before, found again by their bytes: for text that repeats
/// from record to record, as column names do (an app has a few dozen, a log millions of
/// changes).
///
/// A hit compares two words where building the string would copy and check its bytes: in
/// a replay, finding a column name took about half the instructions of building it. The
/// table is small and direct-mapped (a newer string takes its slot), since a miss only
/// costs the build it saves otherwise.
struct RecentShortStrings {
    /// Two words holding up to 15 bytes, zero-padded, and the length in the last byte:
    /// two different strings of up to 15 bytes never share one.
    private struct Key: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
    }

    private struct Slot {
        // No string's key is all zeros (its length is in it), so no lookup hits an empty slot.
        var key = Key()
        var string = ""
    }

    /// The longest string the table keeps; longer ones are built every time (no key holds
    /// them).
    static let lengthMax = 15
    private static let slotBits = 6

    private var slots: ContiguousArray<Slot>

    /// A table of 64 slots.
    init() { self.init(slots: ContiguousArray(repeating: Slot(), count: 1 << Self.slotBits)) }

    /// No table: every string is built (for one-off decodes, where filling a table would
    /// cost more than it saves). Allocates nothing.
    static var none: RecentShortStrings { RecentShortStrings(slots: []) }

    private init(slots: ContiguousArray<Slot>) { self.slots = slots }

    /// The string of `bytes`; nil if they are not UTF-8.
    mutating func string(of bytes: UnsafeRawBufferPointer) -> String? {
        guard !slots.isEmpty, !bytes.isEmpty, bytes.count <= Self.lengthMax else {
            return ValueCodec.string(of: bytes)
        }
        var key = Key()
        withUnsafeMutableBytes(of: &key) { $0.copyMemory(from: bytes) }
        // Checked for ASCII in the key's two words, before the length goes in.
        guard (key.low | key.high) & 0x8080_8080_8080_8080 == 0 else {
            return ValueCodec.string(of: bytes)
        }
        key.high |= UInt64(bytes.count) << 56
        let mixed = (key.low ^ key.high &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15
        let slot = Int(truncatingIfNeeded: mixed >> (64 - Self.slotBits))
        let held = slots.withUnsafeBufferPointer { slots in
            slots[slot].key == key ? slots[slot].string : nil
        }
        if let held { return held }
        let string = String(asciiBytes: bytes)
        slots[slot] = Slot(key: key, string: string)
        return string
    }
}
