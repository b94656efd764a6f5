import LogbookStorage

/// Writes a replica snapshot's body (docs/format/replica-snapshot.md): entries, in the order
/// given, become change records in log batches numbered from 0, each chained to the CRC of
/// the one before; their count and order-independent check are kept for the header.
struct ReplicaSnapshotBodyWriter {
    /// Raw bytes gathered before a batch is compressed and framed.
    let batchRawTarget: Int
    /// The batches closed so far.
    private(set) var bytes: [UInt8] = []
    /// The sum of every entry's `EntryHash` (`StateDigest.add(hashing:)`).
    private(set) var check = StateDigest(high: 0, low: 0)
    /// Entries added.
    private(set) var count: UInt64 = 0
    /// The last closed batch's CRC; 0 before any.
    private(set) var lastBatchCRC: UInt32 = 0
    private var batch = BatchEncoder()

    init(batchRawTarget: Int = 1 << 20) {
        self.batchRawTarget = batchRawTarget
    }

    /// Adds one entry, a change record whose local version is `version`.
    mutating func add(_ record: [UInt8], version: UInt64) {
        if batch.rawSize >= batchRawTarget || !batch.canAppend(byteCount: record.count) {
            closeBatch()
        }
        record.withUnsafeBytes { record in
            batch.append(offset: count, version: version, record: record)
            check.add(hashing: record)
        }
        count += 1
    }

    /// Compresses and frames the entries not yet in a batch.
    mutating func closeBatch() {
        guard !batch.isEmpty else { return }
        let (framed, header) = batch.encode(previousBatchCRC: lastBatchCRC)
        bytes.append(contentsOf: framed)
        lastBatchCRC = header.batchCRC
        batch.reset()
    }
}
