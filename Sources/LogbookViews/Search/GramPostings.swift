/// Posting lists from character n-grams (1, 2 and 3 Unicode scalars) to documents, for
/// finding the documents whose text may contain a substring.
///
/// Lists only grow: re-indexing a document appends fresh postings and leaves the old ones,
/// so a list may name a document whose text no longer has the gram. That is safe because
/// callers verify every candidate against the real text; `SearchIndex` rebuilds the lists
/// when stale postings outnumber live ones.
struct GramPostings {
    private var lists: [UInt64: [Int32]] = [:]
    /// Postings held, stale included.
    private(set) var postingCount = 0

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
        var keys: Set<UInt64> = []
        for length in 1...3 where text.count >= length {
            for start in 0...(text.count - length) {
                keys.insert(Self.key(text[start..<start + length]))
            }
        }
        for key in keys { lists[key, default: []].append(document) }
        postingCount += keys.count
    }

    /// The documents that may contain `needle` (nil: every document may, the needle is empty).
    func candidates(containing needle: [UInt32]) -> Set<Int32>? {
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
        ordered.sort { $0.count < $1.count }
        guard let first = ordered.first else { return [] }
        var result = Set(first)
        for list in ordered.dropFirst() {
            if result.isEmpty { break }
            result.formIntersection(list)
        }
        return result
    }
}
