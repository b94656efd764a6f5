import LogbookCRDT
import LogbookStorage

/// Pass 1 of compaction: which logged changes are still part of the state.
///
/// For every (record, column) it keeps the CRDT winner (by `DefaultMergeRule`: colVersion,
/// then dbVersion, then node), not merely the last offset, and for every record its latest
/// deletion, which shadows every change of the record logged before it. Keys are 64-bit
/// hashes of (record, column) with a 32-bit check from an independent hash: a check
/// mismatch means two keys collided, and such a key is kept whole (never dropped on a
/// guess). Hashes are per process (Swift's seeded `Hasher`): this map never leaves memory.
///
/// Memory per live key: one dictionary entry (8-byte key, 40-byte winner); see
/// docs/maintenance.md for the measured figure.
struct LiveSet {
    struct Winner {
        var offset: UInt64
        var colVersion: UInt64
        var dbVersion: UInt64
        var nodeId: UInt64
        var check: UInt32
        var collided: Bool
    }

    /// Per (record, column) key: the winning change.
    private(set) var winners: [Int: Winner] = [:]
    /// Per record key: the offset of its latest deletion.
    private(set) var deletions: [Int: UInt64] = [:]
    /// Records and changes seen per sealed segment base offset, for the dirty ratio.
    private(set) var recordsRead = 0

    mutating func note(_ change: ChangeRecordKey, at offset: UInt64) {
        recordsRead += 1
        if change.isClock { return }
        if change.isRecordDeletion {
            let key = Self.recordKey(change.recordId)
            deletions[key] = max(deletions[key] ?? 0, offset)
            return
        }
        let (key, check) = Self.columnKey(change.recordId, change.column)
        let candidate = Winner(
            offset: offset, colVersion: change.colVersion, dbVersion: change.dbVersion,
            nodeId: change.nodeId,
            check: check, collided: false)
        guard var current = winners[key] else {
            winners[key] = candidate
            return
        }
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
            var replacement = candidate
            replacement.collided = current.collided
            winners[key] = replacement
        }
    }

    /// True when the record at `offset` is still part of the state (clock records always are).
    func isLive(_ change: ChangeRecordKey, at offset: UInt64) -> Bool {
        if change.isClock { return true }
        let deletion = deletions[Self.recordKey(change.recordId)]
        if change.isRecordDeletion { return deletion == offset }
        if let deletion, deletion > offset { return false }
        let (key, _) = Self.columnKey(change.recordId, change.column)
        guard let winner = winners[key] else { return true }  // not seen in pass 1: keep
        return winner.collided || winner.offset == offset
    }

    /// Live (record, column) keys.
    var liveKeyCount: Int { winners.count }
    /// Records deleted (live tombstones).
    var tombstoneCount: Int { deletions.count }

    private static func recordKey(_ recordId: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(0xDE1E7E as UInt32)
        hasher.combine(bytes: recordId)
        return hasher.finalize()
    }

    /// Length-framed, so ("ab", "c") and ("a", "bc") differ.
    private static func columnKey(
        _ recordId: UnsafeRawBufferPointer, _ column: UnsafeRawBufferPointer
    ) -> (Int, UInt32) {
        var hasher = Hasher()
        hasher.combine(recordId.count)
        hasher.combine(bytes: recordId)
        hasher.combine(bytes: column)
        var checker = Hasher()
        checker.combine(column.count)
        checker.combine(bytes: column)
        checker.combine(0xC0FFEE as UInt32)
        checker.combine(bytes: recordId)
        return (hasher.finalize(), UInt32(truncatingIfNeeded: checker.finalize()))
    }
}
