import LogbookCRDT

/// A replica's state as change records: every column of every live record with its winning
/// version and value (or field deletion), and every tombstone as a record deletion. Restoring
/// these records into an empty CRDT rebuilds the same data, versions, tombstones and clock.
///
/// Used to write a snapshot, and to count a loaded one's entries: restored into an empty
/// state, entries that overlap (one column twice, a record's column and its tombstone, one
/// tombstone twice) leave fewer entries than were read.
enum ReplicaStateEntries {
    /// Calls `body` with each entry's encoded change record and its log version (the local
    /// version): live records by id, then tombstones by id, each record's columns in the
    /// order it holds them, so one state always gives the same bytes. Records with no column
    /// are skipped: no change made them, so a replay of the log would not hold them either.
    static func forEach(
        _ replica: some ReplicaContents, _ body: (_ record: [UInt8], _ version: UInt64) -> Void
    ) {
        var bytes: [UInt8] = []
        var records: [(id: String, record: Record<String, Value>)] = []
        replica.forEachRecord { records.append(($0, $1)) }
        records.sort { $0.id < $1.id }
        for (recordId, record) in records {
            record.forEachColumn { column, version, value in
                bytes.removeAll(keepingCapacity: true)
                let change = Change<String, String, Value>(
                    recordId: recordId, colName: column, value: value,
                    colVersion: version.colVersion, dbVersion: version.dbVersion,
                    nodeId: version.nodeId, localDbVersion: version.localDbVersion)
                ChangeRecordCodec.encode(.change(change), into: &bytes)
                body(bytes, version.localDbVersion)
            }
        }
        var tombstones: [(id: String, tombstone: TombstoneInfo)] = []
        replica.forEachTombstone { tombstones.append(($0, $1)) }
        tombstones.sort { $0.id < $1.id }
        for (recordId, tombstone) in tombstones {
            bytes.removeAll(keepingCapacity: true)
            let deletion = Change<String, String, Value>(
                recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
                dbVersion: tombstone.dbVersion, nodeId: tombstone.nodeId,
                localDbVersion: tombstone.localDbVersion)
            ChangeRecordCodec.encode(.change(deletion), into: &bytes)
            body(bytes, tombstone.localDbVersion)
        }
    }

    /// How many entries `forEach` would give for `replica`: its live columns and tombstones.
    static func count(of replica: some ReplicaContents) -> UInt64 {
        var count: UInt64 = 0
        replica.forEachRecord { _, record in count += UInt64(record.columnCount) }
        replica.forEachTombstone { _, _ in count += 1 }
        return count
    }
}

extension StateDigest {
    /// Adds the `EntryHash` of `bytes` to both halves (wrapping), so the order of additions
    /// does not matter.
    mutating func add(hashing bytes: UnsafeRawBufferPointer) {
        let (termHigh, termLow) = EntryHash.of(bytes)
        high = high &+ termHigh
        low = low &+ termLow
    }
}

/// A 128-bit hash of a snapshot entry: two multiply-rotate lanes over little-endian 64-bit
/// words (the shape of xxHash's round) and a final avalanche. Fixed across runs and
/// platforms, unlike Swift's `Hasher`; eight bytes a step, unlike the byte-wise FNV of
/// `StateDigest`, because the loader hashes every entry of every snapshot it opens.
enum EntryHash {
    /// The hash of `bytes` as a term of a sum (a snapshot's entry check, a state digest).
    static func term(_ bytes: [UInt8]) -> DigestSum {
        let (high, low) = bytes.withUnsafeBytes { of($0) }
        return DigestSum(high: high, low: low)
    }

    static func of(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
        let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        let prime3: UInt64 = 0x1656_67B1_9E37_79F9
        var first: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var second: UInt64 = 0x1319_8A2E_0370_7344 &+ UInt64(bytes.count)
        func mix(_ word: UInt64) {
            first = rotated(first ^ (word &* prime2), 31) &* prime1
            second = rotated(second &+ (word &* prime3), 27) &* prime2
        }
        var position = 0
        while position + 8 <= bytes.count {
            mix(
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            )
            position += 8
        }
        // The last 0–7 bytes, copied into a zeroed word at once rather than a byte a step.
        var tail: UInt64 = 0
        withUnsafeMutableBytes(of: &tail) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position...]))
        }
        mix(UInt64(littleEndian: tail))  // length in the seeds: a zero tail is no ambiguity
        first = avalanche(first, prime2, prime3)
        second = avalanche(second, prime1, prime3)
        return (first, second ^ first)
    }

    private static func rotated(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }

    private static func avalanche(_ value: UInt64, _ one: UInt64, _ two: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value = value &* one
        value ^= value >> 29
        value = value &* two
        value ^= value >> 32
        return value
    }
}
