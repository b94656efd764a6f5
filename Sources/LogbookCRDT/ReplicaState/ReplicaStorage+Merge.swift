import CMemoryHints

extension ReplicaStorage {
    /// Merges `changes` in order with `CRDT.mergeChanges(_:)`'s rules; see
    /// `ReplicaState.merge(_:)`.
    mutating func merge(_ changes: [Change<String, String, Value>]) -> AcceptedChanges {
        var accepted = AcceptedChanges()
        accepted.reserveCapacity(changes.count)
        var clock = self.clock
        forEachChange(of: changes) { storage, changes, position, number in
            let localDbVersion = clock.update(changes[position].dbVersion)
            if storage.apply(changes, position, to: number, localDbVersion: localDbVersion) {
                accepted.append(position: position, localDbVersion: localDbVersion)
            }
        }
        self.clock = clock
        return accepted
    }

    /// Applies stored changes with their own local versions, then sets the clock to the
    /// highest version seen; see `ReplicaState.restore(_:)`.
    mutating func restore(_ changes: [Change<String, String, Value>]) {
        var highestVersion = clock.currentTime()
        forEachChange(of: changes) { storage, changes, position, number in
            let localDbVersion = changes[position].localDbVersion
            highestVersion = max(
                highestVersion,
                LogicalClock.followed(changes[position].dbVersion, at: highestVersion),
                localDbVersion)
            storage.apply(changes, position, to: number, localDbVersion: localDbVersion)
        }
        clock.setTime(highestVersion)
    }

    /// How far ahead of the change being applied the loop hashes an id and prefetches its
    /// slot in the id table. Each later step needs what the one before loaded: the entry is
    /// prefetched at two thirds of that distance, the first line of the record's columns at
    /// a third, and the rest of its columns (their count now cached) at a sixth. Far enough
    /// for a cache miss to finish, near enough that what was fetched is still cached.
    static let prefetchDistance = 12

    /// How far ahead of the item being applied the items themselves are prefetched, sixteen
    /// places before their ids are read: a change is 96 bytes, most on two lines, and reading
    /// each id was a sixth of a replay's restore loop in perf, its batches having been written
    /// by the decoding thread on the other core.
    static let itemPrefetchDistance = prefetchDistance + 16

    /// Calls `body` with each change's position and its record's number (created when new),
    /// in order, while what the changes a few places ahead need is being loaded into the
    /// cache (`forEachPrefetched`).
    @inline(__always)
    mutating func forEachChange(
        of changes: [Change<String, String, Value>],
        _ body: (inout ReplicaStorage, UnsafeBufferPointer<Change<String, String, Value>>, Int, Int)
            -> Void
    ) {
        changes.withUnsafeBufferPointer { changes in
            forEachPrefetched(
                count: changes.count, recordId: { changes[$0].recordId },
                prefetchItem: { index in
                    if let base = changes.baseAddress {
                        logbook_prefetch_range_for_read(
                            base + index, MemoryLayout<Change<String, String, Value>>.size)
                    }
                }
            ) {
                storage, index, hash in
                let number = storage.numberCreatingEntry(for: changes[index].recordId, hash: hash)
                body(&storage, changes, index, number)
            }
        }
    }

    /// Calls `body` with each index below `count` and the hash of its record id, in order,
    /// while the id-table slots, entries and columns of the records a few places ahead are
    /// being loaded into the cache, and `prefetchItem` is asked to load the item at an index
    /// further ahead. Prefetching is only a hint: `body` makes every lookup again, in order,
    /// so earlier items that create or delete records are seen.
    @inline(__always)
    mutating func forEachPrefetched(
        count: Int, recordId: (Int) -> String, prefetchItem: (Int) -> Void = { _ in },
        _ body: (inout ReplicaStorage, Int, UInt64) -> Void
    ) {
        let distance = Self.prefetchDistance
        for index in 0..<min(Self.itemPrefetchDistance, count) { prefetchItem(index) }
        var hashes = (0..<16).map { _ in UInt64(0) }
        for index in 0..<min(distance, count) {
            hashes[index & 15] = hash(recordId(index))
            table.prefetch(hashes[index & 15])
        }
        for index in 0..<count {
            if index + Self.itemPrefetchDistance < count {
                prefetchItem(index + Self.itemPrefetchDistance)
            }
            let ahead = index + distance
            if ahead < count {
                hashes[ahead & 15] = hash(recordId(ahead))
                table.prefetch(hashes[ahead & 15])
            }
            if index + distance * 2 / 3 < count {
                prefetchEntry(forHash: hashes[(index + distance * 2 / 3) & 15])
            }
            if index + distance / 3 < count {
                prefetchFirstColumnLine(forHash: hashes[(index + distance / 3) & 15])
            }
            if index + distance / 6 < count {
                prefetchOtherColumnLines(forHash: hashes[(index + distance / 6) & 15])
            }
            body(&self, index, hashes[index & 15])
        }
    }

    /// The number a hash's first table slot leads to, when it names an entry: a guess, for
    /// prefetching only.
    @inline(__always)
    private func likelyEntryNumber(forHash hash: UInt64) -> Int? {
        guard let number = table.likelyNumber(forHash: hash), number < entries.count else {
            return nil
        }
        return number
    }

    /// Starts loading the entry a hash's first table slot leads to: both of its cache lines
    /// when it straddles two, as most do.
    @inline(__always)
    private func prefetchEntry(forHash hash: UInt64) {
        guard let number = likelyEntryNumber(forHash: hash) else { return }
        entries.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                logbook_prefetch_range_for_write(base + number, MemoryLayout<Entry>.size)
            }
        }
    }

    /// Starts loading the line where the columns of the record a hash's first table slot
    /// leads to begin (with the array's header, which holds their count).
    @inline(__always)
    private func prefetchFirstColumnLine(forHash hash: UInt64) {
        guard let number = likelyEntryNumber(forHash: hash) else { return }
        entries[number].record.slots.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { logbook_prefetch_for_write(base) }
        }
    }

    /// Starts loading the lines after the first that the same record's columns take, up to
    /// `ColumnsHint.bytesMax`: called once `prefetchFirstColumnLine` has cached their count.
    @inline(__always)
    private func prefetchOtherColumnLines(forHash hash: UInt64) {
        guard let number = likelyEntryNumber(forHash: hash) else { return }
        entries[number].record.slots.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let start = UnsafeRawPointer(base)
            let end =
                start
                + min(
                    buffer.count * MemoryLayout<Record<String, Value>.Slot>.stride,
                    ColumnsHint.bytesMax)
            let secondLine = (start + 1).alignedUp(toMultipleOf: 64)
            if end > secondLine { logbook_prefetch_range_for_write(secondLine, end - secondLine) }
        }
    }

    /// Applies `changes[position]` to the record numbered `number` if the merge rules accept
    /// it, stamping `localDbVersion`; returns whether it was accepted. Never touches the
    /// clock. Reads the change's fields in place: copying a whole `Change` costs more here
    /// than the rest of the merge.
    @inline(__always) @discardableResult
    mutating func apply(
        _ changes: UnsafeBufferPointer<Change<String, String, Value>>, _ position: Int,
        to number: Int, localDbVersion: UInt64
    ) -> Bool {
        switch entries[number].status {
        case .tombstoned:
            return false
        case .live, .absent:
            guard let column = changes[position].colName else {
                tombstone(
                    number,
                    TombstoneInfo(
                        dbVersion: changes[position].dbVersion, nodeId: changes[position].nodeId,
                        localDbVersion: localDbVersion))
                return true
            }
            makeLive(number)
            let version = ColumnVersion(
                colVersion: changes[position].colVersion, dbVersion: changes[position].dbVersion,
                nodeId: changes[position].nodeId, localDbVersion: localDbVersion)
            guard
                entries[number].record.writeIfPreferred(
                    column, version: version, value: changes[position].value)
            else { return false }
            noteChanged(number)
            return true
        }
    }
}
