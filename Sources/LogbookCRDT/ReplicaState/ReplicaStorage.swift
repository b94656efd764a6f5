/// What a `ReplicaState` holds, as one value: records numbered densely by id, the id table,
/// tombstones and the clock.
///
/// A struct inside the class so that a merge is one mutating call: within it, the arrays
/// are reached through `self` directly, with no exclusivity check or retain per access, which
/// a class's stored properties would cost on every change.
struct ReplicaStorage {
    enum Status: UInt8 {
        /// Neither live nor tombstoned: a new entry before its first change, or a free one
        /// (its tombstone was forgotten; the id table no longer leads to it).
        case absent
        case live
        case tombstoned
    }

    /// What the replica holds under one record number: its id, its columns (crdt-lite's
    /// `Record`, so that readers share it copy-on-write as they share a `CRDT`'s) and status.
    struct Entry {
        var id: String
        var record = Record<String, Value>()
        var status: Status = .absent
        /// Changed since the state's last digest, and listed for the next one.
        var digestStale = false
    }

    /// A new record reserves room for this many columns, so that its first writes do not
    /// grow its storage one column at a time.
    static let initialColumnCapacity = 6

    var clock = LogicalClock()
    var entries: ContiguousArray<Entry> = []
    var table = RecordIdTable()
    var tombstones: [Int: TombstoneInfo] = [:]
    var liveCount = 0
    /// Numbers of entries freed when their tombstones were forgotten, for new ids to reuse,
    /// so a replica whose ids come and go does not grow without bound.
    var freeNumbers: [Int] = []
    /// The state digest's terms, kept as entries change (`ReplicaState+Digest.swift`).
    var digest = IncrementalDigest()
    /// Seeded at random, so the table's layout differs per process and a peer cannot pick
    /// ids that all collide.
    let keyHash = KeyHash()

    /// The hash of a record id.
    @inline(__always)
    func hash(_ recordId: String) -> UInt64 { keyHash.hash(recordId) }

    /// The number of `recordId` (whose hash is `hash`, computed when not given), if it has
    /// one. A local write's lookup has the record's columns loaded meanwhile
    /// (`prefetchingColumns`, `ColumnsHint`).
    @inline(__always)
    func number(of recordId: String, hash: UInt64? = nil, prefetchingColumns: Bool = false)
        -> Int?
    {
        table.number(forHash: hash ?? self.hash(recordId), prefetchingColumns: prefetchingColumns) {
            entries[$0].id == recordId
        }
    }

    /// The number of `recordId` (whose hash is `hash`), given a new absent entry if needed;
    /// `prefetchingColumns` as for `number(of:hash:prefetchingColumns:)`.
    @inline(__always)
    mutating func numberCreatingEntry(
        for recordId: String, hash: UInt64, prefetchingColumns: Bool = false
    ) -> Int {
        let location = table.locate(
            hash, prefetchingColumns: prefetchingColumns, where: { entries[$0].id == recordId })
        switch location {
        case .found(let number):
            return number
        case .vacant(let slot):
            let number: Int
            if let free = freeNumbers.popLast() {
                number = free
                entries[number] = Entry(id: recordId)
            } else {
                number = entries.count
                entries.append(Entry(id: recordId))
            }
            table.insert(number, forHash: hash, at: slot)
            return number
        }
    }

    /// Notes in the id table where the columns of the entry numbered `number` (whose id
    /// hashes to `hash`) now lie, so that the next lookup of the id starts loading them at
    /// once (`ColumnsHint`). Local writes call it last: the table's line is still cached.
    @inline(__always)
    mutating func noteColumnsLocation(of number: Int, hash: UInt64) {
        let hint = entries[number].record.slots.withUnsafeBytes { ColumnsHint(of: $0) }
        table.noteColumns(hint, of: number, forHash: hash)
    }

    /// Makes a record live (an absent one starts with no columns, and room for a few).
    @inline(__always)
    mutating func makeLive(_ number: Int) {
        if entries[number].status != .live {
            entries[number].status = .live
            entries[number].record.slots.reserveCapacity(Self.initialColumnCapacity)
            liveCount += 1
            noteChanged(number)
        }
    }

    /// Forgets a tombstone: the entry is freed and its number goes back for reuse. Returns
    /// false when `recordId` has no tombstone.
    mutating func forgetTombstone(_ recordId: String) -> Bool {
        let hash = hash(recordId)
        guard let number = number(of: recordId, hash: hash),
            tombstones.removeValue(forKey: number) != nil
        else { return false }
        table.remove(number, forHash: hash)
        entries[number] = Entry(id: "")
        noteChanged(number)
        freeNumbers.append(number)
        return true
    }

    /// Deletes a live or absent record: its columns go, its tombstone stays.
    mutating func tombstone(_ number: Int, _ tombstone: TombstoneInfo) {
        if entries[number].status == .live { liveCount -= 1 }
        entries[number].status = .tombstoned
        entries[number].record = Record()
        tombstones[number] = tombstone
        noteChanged(number)
    }

}
