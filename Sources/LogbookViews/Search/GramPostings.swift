import Foundation

/// Posting lists from character n-grams (1, 2 and 3 Unicode scalars) to documents, for
/// finding the documents whose text may contain a substring.
///
/// Lists only grow: re-indexing a document appends fresh postings and leaves the old ones,
/// so a list may name a document whose text no longer has the gram. That is safe because
/// callers verify every candidate against the real text; `SearchIndex` rebuilds the lists
/// when stale postings outnumber live ones. Lists are kept sorted and free of duplicates
/// (`normalize()` after appends), so candidates come from linear merges, not hash sets.
struct GramPostings {
    private var lists: [UInt64: [Int32]] = [:]
    /// Lists that received a document out of order since the last `normalize()`.
    private var unsorted: Set<UInt64> = []

    /// Packs up to three scalars (21 bits each). A trigram uses the low 63 bits; shorter
    /// grams set the top bit, and bit 62 tells a bigram from a unigram.
    static func key(_ scalars: ArraySlice<UInt32>) -> UInt64 {
        var key: UInt64 = 0
        for scalar in scalars { key = key << 21 | UInt64(scalar & 0x1F_FFFF) }
        switch scalars.count {
        case 3: return key
        case 2: return key | 1 << 63 | 1 << 62
        default: return key | 1 << 63
        }
    }

    /// Adds `document` under every distinct 1-, 2- and 3-gram of `text`.
    mutating func add(_ document: Int32, text: [UInt32]) {
        var keys: [UInt64] = []
        keys.reserveCapacity(text.count * 3)
        for length in 1...3 where text.count >= length {
            for start in 0...(text.count - length) {
                keys.append(Self.key(text[start..<start + length]))
            }
        }
        keys.sort()
        var previous: UInt64?
        for key in keys where key != previous {
            previous = key
            if let last = lists[key]?.last, last >= document {
                if last == document { continue }
                unsorted.insert(key)
            }
            lists[key, default: []].append(document)
        }
    }

    /// Sorts and de-duplicates the lists that need it; call before querying.
    mutating func normalize() {
        for key in unsorted {
            guard var list = lists[key] else { continue }
            list.sort()
            var kept = 0
            for index in list.indices where index == 0 || list[index] != list[index - 1] {
                list[kept] = list[index]
                kept += 1
            }
            list.removeLast(list.count - kept)
            lists[key] = list
        }
        unsorted = []
    }

    /// The documents that may contain `needle`, sorted (nil: the needle is empty, every
    /// document may).
    func candidates(containing needle: [UInt32]) -> [Int32]? {
        guard !needle.isEmpty else { return nil }
        let length = min(3, needle.count)
        var keys: Set<UInt64> = []
        for start in 0...(needle.count - length) {
            keys.insert(Self.key(needle[start..<start + length]))
        }
        var ordered: [[Int32]] = []
        for key in keys {
            guard let list = lists[key] else { return [] }
            ordered.append(list)
        }
        return SortedSlots.intersection(of: ordered)
    }

    /// The documents that may contain `needle`, a text of several words, given each word's
    /// candidates (`words`): a document holding the needle holds every word, so the answer
    /// starts from the words' intersection and looks up only the trigrams that span
    /// whitespace; the others lie inside one word and its candidates account for them.
    func candidates(containing needle: [UInt32], givenWords words: [[Int32]]) -> [Int32] {
        guard needle.count >= 3, !words.isEmpty else {
            return candidates(containing: needle) ?? []
        }
        var keys: Set<UInt64> = []
        for start in 0...(needle.count - 3) {
            let gram = needle[start..<start + 3]
            guard gram.contains(where: Self.isWhitespace) else { continue }
            keys.insert(Self.key(gram))
        }
        var ordered = words
        for key in keys {
            guard let list = lists[key] else { return [] }
            ordered.append(list)
        }
        return SortedSlots.intersection(of: ordered)
    }

    /// Whitespace as the query's words are split on.
    static func isWhitespace(_ scalar: UInt32) -> Bool {
        Unicode.Scalar(scalar)?.properties.isWhitespace ?? false
    }
}

/// Merges of sorted, duplicate-free slot lists.
enum SortedSlots {
    /// Slots in every one of `lists` (none when there is no list), merged shortest first so
    /// each merge is bounded by what is left.
    static func intersection(of lists: [[Int32]]) -> [Int32] {
        let ordered = lists.sorted { $0.count < $1.count }
        guard var result = ordered.first else { return [] }
        for list in ordered.dropFirst() {
            if result.isEmpty { break }
            // The grams of a word that nothing else contains share one list: comparing the
            // memory costs a fraction of a merge.
            if list.count == result.count && equal(result, list) { continue }
            result = intersection(result, list)
        }
        return result
    }

    /// Slots in both. When one list is much shorter, each of its slots is found in the
    /// longer one by galloping (doubling steps, then a binary search) from where the last
    /// was found, so the cost follows the shorter list, not the sum of both.
    static func intersection(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        if short.count * 16 < long.count { return galloping(short, in: long) }
        // A merge without branches on the data: the comparisons of random lists are not
        // predictable, and a mispredicted branch per step cost more than the step.
        return [Int32](unsafeUninitializedCapacity: short.count) { result, resultCount in
            short.withUnsafeBufferPointer { short in
                long.withUnsafeBufferPointer { long in
                    var i = 0
                    var j = 0
                    var kept = 0
                    while i < short.count && j < long.count {
                        let x = Int64(short[i])
                        let y = Int64(long[j])
                        // kept <= min(i, j) < short.count: always within the result.
                        result[kept] = Int32(truncatingIfNeeded: x)
                        // Sign bits as 0 or 1, so the compiler keeps no branch: x <= y, y <= x.
                        let shortStep = Int(1 &+ ((y &- x) >> 63))
                        let longStep = Int(1 &+ ((x &- y) >> 63))
                        kept &+= shortStep & longStep
                        i &+= shortStep
                        j &+= longStep
                    }
                    resultCount = kept
                }
            }
        }
    }

    /// Slots in either list, once each.
    static func union(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            let x = a[i]
            let y = b[j]
            result.append(min(x, y))
            if x <= y { i += 1 }
            if y <= x { j += 1 }
        }
        result.append(contentsOf: a[i...])
        result.append(contentsOf: b[j...])
        return result
    }

    /// Whether the two lists hold the same slots.
    static func equal(_ a: [Int32], _ b: [Int32]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                guard let left = a.baseAddress, let right = b.baseAddress else { return true }
                return memcmp(left, right, a.count) == 0
            }
        }
    }

    private static func galloping(_ short: [Int32], in long: [Int32]) -> [Int32] {
        var result: [Int32] = []
        var low = 0
        for slot in short {
            // Double the step until long[low + step] >= slot, then search that window.
            var step = 1
            while low + step < long.count && long[low + step] < slot { step *= 2 }
            var lower = low
            var upper = min(low + step, long.count - 1)
            guard lower <= upper else { break }
            while lower < upper {
                let middle = lower + (upper - lower) / 2
                if long[middle] < slot { lower = middle + 1 } else { upper = middle }
            }
            if long[lower] == slot { result.append(slot) }
            if long[lower] < slot { break }  // every later slot of short is past the end
            low = lower
        }
        return result
    }
}
