import LogbookCRDT

/// A replica's state as change records: every column of every live record with its winning
/// version and value (or field deletion), and every tombstone as a record deletion. Restoring
/// these records into an empty CRDT rebuilds the same data, versions, tombstones and clock.
///
/// Used to write a snapshot and to check a loaded one: the check is an order-independent sum
/// of the records' hashes, so the writer and the loader need not walk in the same order.
enum ReplicaStateEntries {
    /// Calls `body` with each entry's encoded change record and its log version (the local
    /// version). Records with no column are skipped: no change made them, so a replay of
    /// the log would not hold them either. `sorted`: live records by id, then tombstones by
    /// id, each record's columns in the order it holds them, so one state always gives the
    /// same bytes; otherwise in dictionary order (no sort, for the check).
    static func forEach(
        _ crdt: CRDT<String, String, Value>, sorted: Bool,
        _ body: (_ record: [UInt8], _ version: UInt64) -> Void
    ) {
        var bytes: [UInt8] = []
        let data = crdt.getData()
        let tombstones = crdt.getTombstones()
        for recordId in sorted ? data.keys.sorted() : Array(data.keys) {
            guard let record = data[recordId] else { continue }
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
        for recordId in sorted ? tombstones.keys.sorted() : Array(tombstones.keys) {
            guard let tombstone = tombstones[recordId] else { continue }
            bytes.removeAll(keepingCapacity: true)
            let deletion = Change<String, String, Value>(
                recordId: recordId, colName: nil, value: nil, colVersion: tombstoneColumnVersion,
                dbVersion: tombstone.dbVersion, nodeId: tombstone.nodeId,
                localDbVersion: tombstone.localDbVersion)
            ChangeRecordCodec.encode(.change(deletion), into: &bytes)
            body(bytes, tombstone.localDbVersion)
        }
    }

    /// The order-independent check of a state: the wrapping sum of every entry's 128-bit
    /// hash, and the entry count. Unlike `StateDigest` it covers local versions and
    /// tombstone versions too, and needs no sort.
    static func check(of crdt: CRDT<String, String, Value>) -> (check: StateDigest, count: UInt64) {
        var sum = StateDigest(high: 0, low: 0)
        var count: UInt64 = 0
        forEach(crdt, sorted: false) { record, _ in
            sum.add(hashing: record)
            count += 1
        }
        return (sum, count)
    }
}

extension StateDigest {
    /// Adds the hash of `bytes` to both halves (wrapping), so the order of additions does
    /// not matter.
    mutating func add(hashing bytes: [UInt8]) {
        var hasher = StableHasher()
        hasher.combine(bytes)
        let (first, second) = hasher.finalize()
        high = high &+ first
        low = low &+ second
    }
}
