import Foundation

extension ChangeField {
    /// The field and form that a key's raw bytes (no escapes) name, or nil.
    ///
    /// The first byte and the length pick the one candidate a key can be, so a change's eight
    /// keys cost one short comparison each instead of a `String` and a search.
    static func named(_ key: UnsafeBufferPointer<UInt8>) -> (ChangeField, ChangeJSONFormat)? {
        guard key.count <= 16, let first = key.first,
            let candidate = candidate(first: first, count: key.count)
        else { return nil }
        let name = candidate.1 == .swift ? candidate.0.swiftName : candidate.0.rustName
        guard let start = key.baseAddress, name.utf8CodeUnitCount == key.count,
            sameShortBytes(UnsafeRawPointer(start), UnsafeRawPointer(name.utf8Start), key.count)
        else { return nil }
        return candidate
    }

    /// Whether `count` bytes (4 to 16, as every key is) are equal at both places: two
    /// overlapping loads from each end, with no call to `memcmp` for so few bytes.
    @inline(__always)
    private static func sameShortBytes(
        _ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ count: Int
    ) -> Bool {
        if count >= 8 {
            return left.loadUnaligned(as: UInt64.self) == right.loadUnaligned(as: UInt64.self)
                && left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        guard count >= 4 else { return memcmp(left, right, count) == 0 }
        return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
            && left.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                == right.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
    }

    /// The one key a key's first byte and length can be: `candidates[slot(first, count)]`
    /// holds `field raw value × 2 + (1 for the Rust form)`, or 0xFF for none. Bits 0 and 4
    /// of the first byte tell apart the two keys of each length (value/flags, colName/
    /// node_id, recordId/col_name, dbVersion/record_id, colVersion/db_version). A table, not
    /// a `switch`: a jump per key, eight keys a change, mispredicts.
    private static func candidate(first: UInt8, count: Int) -> (ChangeField, ChangeJSONFormat)? {
        let slot = count << 2 | Int(first & 1) | Int(first >> 3 & 2)
        guard slot < candidates.count else { return nil }
        let code = candidates[slot]
        guard code != 0xFF, let field = ChangeField(rawValue: code >> 1) else { return nil }
        return (field, code & 1 == 0 ? .swift : .rust)
    }

    private static let candidates: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0E, 0xFF, 0x04, 0xFF,
        0x0A, 0xFF, 0xFF, 0xFF, 0x0B, 0x02, 0xFF, 0xFF, 0xFF, 0x03, 0x00, 0xFF,
        0x08, 0xFF, 0x01, 0xFF, 0x09, 0x06, 0xFF, 0xFF, 0xFF, 0x07, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0C, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0x0D, 0xFF, 0xFF, 0xFF,
    ]

}
