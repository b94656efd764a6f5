/// One record's place in an index: its key (`IndexKeyEncoding`) and its id.
struct IndexEntry: Sendable {
    var key: [UInt8]
    var recordId: String
}

/// Entries with distinct byte keys in `IndexKeyEncoding.compare` order, in chunks of at most `chunkSizeMax`
/// sorted keys: finding a key is a binary search over the chunks' last keys and then within
/// one chunk, O(log n); an insertion or removal moves at most a chunk's keys (and, when a
/// chunk splits or empties, the list of chunks: n / chunkSizeMax entries). A sorted array
/// would move half the keys per insertion; a balanced tree would cost a node per key.
struct SortedKeys {
    static let chunkSizeMax = 512

    /// Non-empty sorted chunks, each one's keys after the previous one's.
    private(set) var chunks: [[IndexEntry]] = []
    /// Every key in it.
    private(set) var count = 0

    /// A key's place: its chunk and its index in the chunk.
    struct Position: Equatable {
        var chunk: Int
        var index: Int
    }

    /// Inserts `entry`; false when its key is there already.
    @discardableResult
    mutating func insert(_ entry: IndexEntry) -> Bool {
        let key = entry.key
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            count = 1
            return true
        }
        // The first chunk whose last key is not below `key`, or the last chunk.
        let chunk = min(firstChunk(notBelow: key), chunks.count - 1)
        let index = Self.firstIndex(in: chunks[chunk], notBelow: key)
        if index < chunks[chunk].count, IndexKeyEncoding.compare(chunks[chunk][index].key, key) == 0
        {
            return false
        }
        chunks[chunk].insert(entry, at: index)
        count += 1
        if chunks[chunk].count > Self.chunkSizeMax {
            let upper = Array(chunks[chunk][(Self.chunkSizeMax / 2)...])
            chunks[chunk].removeLast(upper.count)
            chunks.insert(upper, at: chunk + 1)
        }
        return true
    }

    /// Removes the entry with `key`; false when there is none.
    @discardableResult
    mutating func remove(_ key: [UInt8]) -> Bool {
        let chunk = firstChunk(notBelow: key)
        guard chunk < chunks.count else { return false }
        let index = Self.firstIndex(in: chunks[chunk], notBelow: key)
        guard index < chunks[chunk].count,
            IndexKeyEncoding.compare(chunks[chunk][index].key, key) == 0
        else { return false }
        chunks[chunk].remove(at: index)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        return true
    }

    /// The place of the first key at or after `bound` (`end` when none is).
    func firstPosition(notBelow bound: [UInt8]) -> Position {
        let chunk = firstChunk(notBelow: bound)
        guard chunk < chunks.count else { return end }
        return Position(chunk: chunk, index: Self.firstIndex(in: chunks[chunk], notBelow: bound))
    }

    /// The place after the last key.
    var end: Position { Position(chunk: chunks.count, index: 0) }

    /// The entry at `position`, which is before `end`.
    func entry(at position: Position) -> IndexEntry { chunks[position.chunk][position.index] }

    /// The place after `position`.
    func position(after position: Position) -> Position {
        if position.index + 1 < chunks[position.chunk].count {
            return Position(chunk: position.chunk, index: position.index + 1)
        }
        return Position(chunk: position.chunk + 1, index: 0)
    }

    /// The place before `position`; nil when it is the first.
    func position(before position: Position) -> Position? {
        if position.index > 0 { return Position(chunk: position.chunk, index: position.index - 1) }
        guard position.chunk > 0 else { return nil }
        return Position(chunk: position.chunk - 1, index: chunks[position.chunk - 1].count - 1)
    }

    /// Replaces the entries with `sorted`, which must be sorted with distinct keys.
    mutating func replace(withSorted sorted: [IndexEntry]) {
        let half = Self.chunkSizeMax / 2
        chunks = stride(from: 0, to: sorted.count, by: half).map {
            Array(sorted[$0..<min($0 + half, sorted.count)])
        }
        count = sorted.count
    }

    /// The index of the first chunk whose last key is at or after `key`.
    private func firstChunk(notBelow key: [UInt8]) -> Int {
        var (low, high) = (0, chunks.count)
        while low < high {
            let middle = low + (high - low) / 2
            if let last = chunks[middle].last, IndexKeyEncoding.compare(last.key, key) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private static func firstIndex(in chunk: [IndexEntry], notBelow key: [UInt8]) -> Int {
        var (low, high) = (0, chunk.count)
        while low < high {
            let middle = low + (high - low) / 2
            if IndexKeyEncoding.compare(chunk[middle].key, key) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
