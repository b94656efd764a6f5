import Foundation

/// Posting lists from character n-grams (1, 2 and 3 Unicode scalars) to documents, for
/// finding the documents whose text may contain a substring.
///
/// Lists only grow: re-indexing a document appends fresh postings and leaves the old ones,
/// so a list may name a document whose text no longer has the gram. That is safe because
/// callers verify every candidate against the real text; `SearchIndex` rebuilds the lists
/// when stale postings outnumber live ones. Lists are kept sorted and free of duplicates
/// (`normalize()` after appends), so candidates come from linear merges, not hash sets;
/// dense lists also keep a bitmap (`GramList`).
struct GramPostings {
    private var lists: [UInt64: GramList] = [:]
    /// Lists that received a document out of order since the last `normalize()`.
    private var unsorted: Set<UInt64> = []

    /// Packs up to three scalars (21 bits each). A trigram uses the low 63 bits; shorter
    /// grams set the top bit, and bit 62 tells a bigram from a unigram.
    static func key(_ scalars: ArraySlice<UInt32>) -> UInt64 {
        var key: UInt64 = 0
        for scalar in scalars { key = key << 21 | UInt64(scalar & 0x1F_FFFF) }
        switch scalars.count {
        case 3: return key
        case 2: return key | shortGramBit | bigramBit
        default: return key | shortGramBit
        }
    }

    private static let shortGramBit: UInt64 = 1 << 63
    private static let bigramBit: UInt64 = 1 << 62

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
            if let last = lists[key]?.slots.last, last >= document {
                if last == document { continue }
                unsorted.insert(key)
            }
            lists[key, default: GramList()].append(document)
        }
    }

    /// Sorts and de-duplicates the lists that need it; call before querying.
    mutating func normalize() {
        for key in unsorted { lists[key]?.normalize() }
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
        var ordered: [GramList] = []
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
        var ordered = words.map(GramList.init(slots:))
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
