import LogbookCRDT
import LogbookStorage

/// Pass 1 of compaction: which logged records are no longer part of the state.
///
/// It walks the log once, in offset order, and marks dead, in a bitset over the offsets
/// below `sealedEnd` (one bit per record):
/// - a column change that is no longer its (record, column)'s CRDT winner (by
///   `DefaultMergeRule`: colVersion, then dbVersion, then node — not merely a later offset);
/// - a record deletion followed by a later deletion of the same record;
/// - at the end, every winner logged before its record's latest deletion, which shadows it.
/// One superseded change is kept on purpose: the first change of every record that is not
/// deleted. Views order records by when they were first created in the log (the Goodies'
/// edges keep insertion order), and the offset of that first change is the only place the
/// order lives; keeping it costs at most one record per live record.
/// Pass 2 then keeps a record exactly when its bit is clear: no hashing, no lookups.
///
/// Keys are 64-bit hashes of (record, column) (`KeyHash`) with a 32-bit check from an
/// independently seeded one; a check mismatch means two keys collided, and from then on that
/// key marks nothing dead (it is kept whole, never dropped on a guess). Seeds are random per
/// process: nothing here leaves memory.
struct LiveSet {
    /// Where a record was first created and last deleted in the log.
    struct RecordMarks {
        var creation: UInt64?
        var deletion: UInt64?

        mutating func noteCreation(at offset: UInt64) {
            if creation == nil { creation = offset }
        }

        /// Records a deletion; returns the one it supersedes.
        mutating func noteDeletion(at offset: UInt64) -> UInt64? {
            defer { deletion = offset }
            return deletion
        }
    }

    struct Winner {
        var offset: UInt64
        var colVersion: UInt64
        var dbVersion: UInt64
        var nodeId: UInt64
        var recordKey: Int
        var check: UInt32
        var collided: Bool
    }

    /// Per (record, column) key: the winning change.
    private var winners: [Int: Winner] = [:]
    /// Per record key: where it was first created and last deleted (one lookup per change).
    private var records: [Int: RecordMarks] = [:]
    /// Records with a deletion logged.
    private var deletedRecords = 0
    /// Offsets `base..<sealedEnd` the rewrite may drop; one bit each.
    private let base: UInt64
    private let sealedEnd: UInt64
    private var dead: [UInt64]
    private var finished = false
    private let keyHash = KeyHash()
    private let checkHash = KeyHash()
    /// The offset of the latest clock record seen.
    private var lastClock: UInt64?

    init(base: UInt64, sealedEnd: UInt64) {
        precondition(base <= sealedEnd, "sealed range \(base)..<\(sealedEnd)")
        self.base = base
        self.sealedEnd = sealedEnd
        dead = [UInt64](repeating: 0, count: Int((sealedEnd - base + 63) / 64))
    }

    mutating func note(_ change: ChangeRecordKey, at offset: UInt64) {
        precondition(!finished, "note after finish")
        if change.isClock {
            // Versions rise with the log, so a clock record says nothing a later one does not.
            if let previous = lastClock { markDead(previous) }
            lastClock = offset
            return
        }
        let recordKey = recordKey(change.recordId)
        if change.isRecordDeletion {
            if let previous = records[recordKey, default: RecordMarks()].noteDeletion(at: offset) {
                markDead(previous)
            } else {
                deletedRecords += 1
            }
            return
        }
        records[recordKey, default: RecordMarks()].noteCreation(at: offset)
        let (key, check) = columnKey(change.recordId, change.column, recordKey: recordKey)
        let candidate = Winner(
            offset: offset, colVersion: change.colVersion, dbVersion: change.dbVersion,
            nodeId: change.nodeId, recordKey: recordKey, check: check, collided: false)
        guard var current = winners[key] else {
            winners[key] = candidate
            return
        }
        if current.collided { return }
        if current.check != check {
            current.collided = true
            winners[key] = current
            return
        }
        let wins = DefaultMergeRule().shouldAccept(
            localCol: current.colVersion, localDb: current.dbVersion, localNode: current.nodeId,
            remoteCol: candidate.colVersion, remoteDb: candidate.dbVersion,
            remoteNode: candidate.nodeId)
        if wins {
            markDead(current.offset)
            winners[key] = candidate
        } else {
            markDead(offset)
        }
    }

    /// Marks the winners their record's latest deletion shadows. Call once, after pass 1.
    mutating func finish() {
        finished = true
        for winner in winners.values where !winner.collided {
            if let deletion = records[winner.recordKey]?.deletion, deletion > winner.offset {
                markDead(winner.offset)
            }
        }
        for marks in records.values where marks.deletion == nil {
            if let creation = marks.creation { markLive(creation) }
        }
    }

    /// True when the record at `offset` is still part of the state (of the clock records,
    /// only the last is: the clock a replay restores is the largest version it reads).
    func isLive(_ offset: UInt64) -> Bool {
        precondition(finished, "isLive before finish")
        guard offset >= base && offset < sealedEnd else { return true }
        let bit = offset - base
        return dead[Int(bit / 64)] & (1 << (bit % 64)) == 0
    }

    /// Dead records among `range` (offsets), by counting bits.
    func deadCount(in range: Range<UInt64>) -> Int {
        var count = 0
        for offset in max(range.lowerBound, base)..<min(range.upperBound, sealedEnd)
        where !isLive(offset) {
            count += 1
        }
        return count
    }

    /// Live (record, column) keys.
    var liveKeyCount: Int { winners.count }
    /// Bytes the winner map's buckets take (keys and winners, at its current capacity).
    var winnerMapBytes: Int {
        winners.capacity * (MemoryLayout<Int>.stride + MemoryLayout<Winner>.stride)
    }
    /// Records deleted (live tombstones).
    var tombstoneCount: Int { deletedRecords }

    private mutating func markDead(_ offset: UInt64) {
        guard offset >= base && offset < sealedEnd else { return }
        let bit = offset - base
        dead[Int(bit / 64)] |= 1 << (bit % 64)
    }

    private mutating func markLive(_ offset: UInt64) {
        guard offset >= base && offset < sealedEnd else { return }
        let bit = offset - base
        dead[Int(bit / 64)] &= ~(1 << (bit % 64))
    }

    private func recordKey(_ recordId: UnsafeRawBufferPointer) -> Int {
        Int(truncatingIfNeeded: keyHash.hash(recordId))
    }

    /// The key of (record, column) from the record's key, and a 32-bit check from an
    /// independently seeded hash.
    private func columnKey(
        _ recordId: UnsafeRawBufferPointer, _ column: UnsafeRawBufferPointer, recordKey: Int
    ) -> (Int, UInt32) {
        let key = keyHash.hash(column, from: UInt64(bitPattern: Int64(recordKey)))
        let check = checkHash.hash(recordId, from: checkHash.hash(column))
        return (Int(truncatingIfNeeded: key), UInt32(truncatingIfNeeded: check))
    }
}
