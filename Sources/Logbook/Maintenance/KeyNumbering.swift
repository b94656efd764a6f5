import LogbookCRDT

/// Dense numbers for byte strings (record ids, column names): the first string seen gets 0,
/// the next new one 1, and so on. Compaction's pass 1 numbers every record and column so
/// that a (record, column) key packs exactly into one 64-bit word of its winner table, and
/// per-record facts live in plain arrays indexed by number.
///
/// A string is identified by a 64-bit hash plus a 32-bit check from an independently seeded
/// hash (96 bits): two strings share a number only if both collide, about 2^-96 per pair.
/// Seeds are random per process; nothing here leaves memory.
struct KeyNumbering {
    /// The two hash seeds; numberings that share them agree on `key(of:)`.
    struct Seeds: Sendable {
        var key: UInt64
        var check: UInt64

        static func random() -> Seeds {
            var generator = SystemRandomNumberGenerator()
            return Seeds(key: generator.next(), check: generator.next())
        }
    }

    private let table = PackedHashTable()
    private let keyHash: KeyHash
    private let checkHash: KeyHash

    init(seeds: Seeds = .random()) {
        keyHash = KeyHash(seed: seeds.key)
        checkHash = KeyHash(seed: seeds.check)
    }

    /// Strings numbered so far.
    var count: Int { table.count }
    /// Bytes of the table.
    var bytes: Int { table.bytes }

    /// The 64-bit half of `bytes`' identity (the same in every numbering with these seeds:
    /// pass 1's threads split records by it).
    @inline(__always)
    func key(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        let key = keyHash.hash(bytes)
        return key == PackedHashTable.emptyKey ? 0 : key  // one value of 2^64 is the marker
    }

    /// A string's number, whether it was new, and its mark (one bit the caller may set once
    /// per string, kept in the slot the lookup has just loaded).
    struct Numbered {
        var number: UInt32
        var isNew: Bool
        var isMarked: Bool
        fileprivate var slot: Int
    }

    /// Numbers fit 31 bits; the 32nd is the mark. Written from `Int32.max` so that a 32-bit
    /// `Int` holds it too.
    static let numberLimit = Int(Int32.max)
    private static let markBit: UInt64 = 1 << 31

    /// The number of `bytes`.
    @inline(__always)
    func number(of bytes: UnsafeRawBufferPointer) -> Numbered {
        number(of: bytes, key: key(of: bytes))
    }

    /// The number of `bytes`, whose `key(of:)` is `key`.
    @inline(__always)
    func number(of bytes: UnsafeRawBufferPointer, key: UInt64) -> Numbered {
        precondition(table.count < Self.numberLimit, "numbering is full")
        let check = UInt64(UInt32(truncatingIfNeeded: checkHash.hash(bytes)))
        let (slot, found) = table.locate(key) { $0 >> 32 == check }
        if found {
            let value = table.value(at: slot)
            return Numbered(
                number: UInt32(truncatingIfNeeded: value & (Self.markBit - 1)), isNew: false,
                isMarked: value & Self.markBit != 0, slot: slot)
        }
        let number = UInt32(truncatingIfNeeded: table.count)
        table.insert(key, check << 32 | UInt64(number), at: slot)
        // The insert may have grown the table and moved the slot; find it again.
        let (moved, _) = table.locate(key) { $0 >> 32 == check }
        return Numbered(number: number, isNew: true, isMarked: false, slot: moved)
    }

    /// Sets the mark of `numbered`; call before numbering another string.
    @inline(__always)
    func mark(_ numbered: Numbered) {
        table.setValue(table.value(at: numbered.slot) | Self.markBit, at: numbered.slot)
    }
}
