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
/// Records and columns get dense numbers (`KeyNumbering`, 96-bit hashed identities), so a
/// (record, column) key is one 64-bit word, and its winner one more: the winning change's
/// offset (40 bits, from `origin`) and its column version (24 bits, saturating). That is all
/// `DefaultMergeRule` needs in the common case, where column versions differ. On a tie (two
/// nodes' concurrent writes), or beyond 2^24 - 1, the winner's full versions are compared
/// exactly: from memory when it was logged recently (`RecentVersions`, the last 2^16 offsets;
/// `tiesSettledInMemory`), else read back from the log (`loggedVersions`;
/// `versionReadBacks`).
/// Seeds are random per process: nothing here leaves memory.
struct LiveSet {
    /// The column version, dbVersion and node of the change logged at an offset.
    typealias LoggedVersions = (UInt64) throws(LogbookError) -> (
        colVersion: UInt64, dbVersion: UInt64, nodeId: UInt64
    )

    private static let offsetBits: UInt64 = 40
    private static let offsetMask: UInt64 = (1 << offsetBits) - 1
    /// Column versions at or above this are stored as this ("at least").
    private static let colVersionCap: UInt64 = (1 << (64 - offsetBits)) - 1
    /// No offset (in `creations` and `deletions`).
    private static let none = UInt64.max
    /// Numbers are 31 bits (so a key is never the table's empty marker, all ones).
    private static let numbersMax = KeyNumbering.numberLimit

    /// Per (record number << 32 | column number): the winner, packed.
    private let winners = PackedHashTable()
    private let records: KeyNumbering
    private let columns = KeyNumbering()
    /// This set owns share `shard` of `shardCount` of the records (by the high bits of the
    /// record's key), and the clock records when `shard` is 0; `WinnerSearch` merges the
    /// shares of one pass.
    private let shard: UInt64
    private let shardCount: UInt64
    /// By record number: where it was first created and last deleted (`none` if not).
    private var creations: [UInt64] = []
    private var deletions: [UInt64] = []
    /// Records with a deletion logged.
    private var deletedRecords = 0
    /// What the rewrite may drop.
    private var dead: DeadRecords
    /// The first offset pass 1 reads; winners' offsets are stored relative to it.
    private let origin: UInt64
    private var finished = false
    private let loggedVersions: LoggedVersions
    /// The offset of the latest clock record seen.
    private var lastClock: UInt64?
    /// Ties settled by reading the winner's versions back from the log.
    private(set) var versionReadBacks = 0
    /// Ties settled from the versions of recent changes.
    private(set) var tiesSettledInMemory = 0
    private var recent: RecentVersions

    init(
        origin: UInt64, base: UInt64, sealedEnd: UInt64,
        shard: Int = 0, of shardCount: Int = 1, recordSeeds: KeyNumbering.Seeds = .random(),
        recentCapacity: Int = 1 << 16, loggedVersions: @escaping LoggedVersions
    ) {
        precondition(origin <= base && base <= sealedEnd, "sealed range \(base)..<\(sealedEnd)")
        precondition(shard >= 0 && shard < shardCount, "shard \(shard) of \(shardCount)")
        self.shard = UInt64(shard)
        self.shardCount = UInt64(shardCount)
        records = KeyNumbering(seeds: recordSeeds)
        self.origin = origin
        self.loggedVersions = loggedVersions
        recent = RecentVersions(capacity: recentCapacity)
        dead = DeadRecords(base: base, sealedEnd: sealedEnd)
    }

    mutating func note(_ change: ChangeRecordKey, at offset: UInt64) throws(LogbookError) {
        precondition(!finished, "note after finish")
        // A snapshot mark binds a snapshot to this log; it is never superseded.
        if change.isSnapshotMark { return }
        if change.isClock {
            guard shard == 0 else { return }
            // Versions rise with the log, so a clock record says nothing a later one does not.
            if let previous = lastClock { markDead(previous) }
            lastClock = offset
            return
        }
        let recordKey = records.key(of: change.recordId)
        // The share by the key's high bits (a multiply, not a division per record).
        guard recordKey.multipliedFullWidth(by: shardCount).high == shard else { return }
        let record = try number(change.recordId, key: recordKey, in: records, at: offset)
        if record.isNew {
            creations.append(Self.none)
            deletions.append(Self.none)
        }
        let recordIndex = Int(record.number)
        if change.isRecordDeletion {
            let previous = deletions[recordIndex]
            if previous == Self.none { deletedRecords += 1 } else { markDead(previous) }
            deletions[recordIndex] = offset
            return
        }
        if !record.isMarked {
            // Its first column change: where the record was created. The mark lives in the
            // numbering slot just loaded, sparing a cache miss on `creations` per change.
            records.mark(record)
            creations[recordIndex] = offset
        }
        let column = try number(
            change.column, key: columns.key(of: change.column), in: columns, at: offset
        ).number
        recent.note((change.colVersion, change.dbVersion, change.nodeId), at: offset)
        let candidate = Candidate(
            key: UInt64(record.number) << 32 | UInt64(column), offset: offset,
            packed: try pack(offset, colVersion: change.colVersion),
            colVersion: change.colVersion, dbVersion: change.dbVersion, nodeId: change.nodeId)
        // The winner-table lookup misses the cache for most changes; start loading its slot
        // now and settle the change a few changes later, so that the misses overlap.
        winners.prefetch(candidate.key)
        if lookAhead.isFull { try settle(lookAhead.removeFirst()) }
        lookAhead.append(candidate)
    }

    /// A column change waiting in the look-ahead window.
    private struct Candidate {
        var key: UInt64
        var offset: UInt64
        var packed: UInt64
        var colVersion: UInt64
        var dbVersion: UInt64
        var nodeId: UInt64
    }

    /// Column changes whose winner slot is being loaded, in log order.
    private var lookAhead = FixedRing(
        capacity: 16,
        filler: Candidate(key: 0, offset: 0, packed: 0, colVersion: 0, dbVersion: 0, nodeId: 0))

    /// Compares `candidate` with its key's winner; the loser is dead.
    private mutating func settle(_ candidate: Candidate) throws(LogbookError) {
        let (slot, found) = winners.locate(candidate.key)
        guard found else {
            winners.insert(candidate.key, candidate.packed, at: slot)
            return
        }
        let current = winners.value(at: slot)
        let currentOffset = origin + (current & Self.offsetMask)
        if try wins(candidate, over: current, loggedAt: currentOffset) {
            markDead(currentOffset)
            winners.setValue(candidate.packed, at: slot)
        } else {
            markDead(candidate.offset)
        }
    }

    /// `DefaultMergeRule` between `candidate` and the packed winner: by column version when
    /// the stored one settles it, else exactly, from the winner's versions read back.
    private mutating func wins(
        _ candidate: Candidate, over winner: UInt64, loggedAt winnerOffset: UInt64
    ) throws(LogbookError) -> Bool {
        let stored = winner >> Self.offsetBits
        if stored < Self.colVersionCap {
            if candidate.colVersion != stored { return candidate.colVersion > stored }
        } else if candidate.colVersion < Self.colVersionCap {
            return false
        }
        let logged: RecentVersions.Versions
        if let remembered = recent.versions(at: winnerOffset) {
            tiesSettledInMemory += 1
            logged = remembered
        } else {
            versionReadBacks += 1
            logged = try loggedVersions(winnerOffset)
        }
        return DefaultMergeRule().shouldAccept(
            localCol: logged.colVersion, localDb: logged.dbVersion, localNode: logged.nodeId,
            remoteCol: candidate.colVersion, remoteDb: candidate.dbVersion,
            remoteNode: candidate.nodeId)
    }

    private func pack(_ offset: UInt64, colVersion: UInt64) throws(LogbookError) -> UInt64 {
        let relative = offset - origin
        guard relative <= Self.offsetMask else {
            throw LogbookError(
                .limitExceeded,
                "compaction reads at most 2^40 offsets in one pass; offset \(offset) is \(relative) past the log start",
                logOffset: offset)
        }
        return min(colVersion, Self.colVersionCap) << Self.offsetBits | relative
    }

    private func number(
        _ bytes: UnsafeRawBufferPointer, key: UInt64, in numbering: KeyNumbering,
        at offset: UInt64
    ) throws(LogbookError) -> KeyNumbering.Numbered {
        guard numbering.count < Self.numbersMax else {
            throw LogbookError(
                .limitExceeded,
                "compaction numbers at most \(Self.numbersMax) distinct record ids and column names",
                logOffset: offset)
        }
        return numbering.number(of: bytes, key: key)
    }

    /// Settles the changes still waiting and marks the winners their record's latest
    /// deletion shadows. Call once, after pass 1.
    mutating func finish() throws(LogbookError) {
        while !lookAhead.isEmpty { try settle(lookAhead.removeFirst()) }
        finished = true
        winners.forEach { key, winner in
            let deletion = deletions[Int(key >> 32)]
            let offset = origin + (winner & Self.offsetMask)
            if deletion != Self.none && deletion > offset { dead.markDead(offset) }
        }
        for (creation, deletion) in zip(creations, deletions)
        where deletion == Self.none && creation != Self.none {
            dead.markLive(creation)
        }
    }

    /// The records the rewrite may drop (of the clock records, all but the last: the clock a
    /// replay restores is the largest version it reads).
    var deadRecords: DeadRecords {
        precondition(finished, "deadRecords before finish")
        return dead
    }

    /// True when the record at `offset` is still part of the state.
    func isLive(_ offset: UInt64) -> Bool { deadRecords.isLive(offset) }

    /// Live (record, column) keys.
    var liveKeyCount: Int { winners.count }
    /// Bytes of the winner table (16 per slot, at its capacity).
    var winnerMapBytes: Int { winners.bytes }
    /// Bytes of the numbering of records and columns and the per-record offsets.
    var numberingBytes: Int {
        records.bytes + columns.bytes
            + (creations.capacity + deletions.capacity) * MemoryLayout<UInt64>.stride
    }
    /// Records deleted (live tombstones).
    var tombstoneCount: Int { deletedRecords }

    private mutating func markDead(_ offset: UInt64) { dead.markDead(offset) }
}
