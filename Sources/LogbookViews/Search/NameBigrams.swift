/// Candidates for the fuzzy bonus: names whose `SequenceMatcher` ratio with the query can
/// exceed 0.8, found without comparing the query with every name.
///
/// The bound: the matching blocks form a common subsequence, so ratio > 0.8 needs a common
/// subsequence of length `L > 0.4 (a + b)`, hence `L ≥ ⌊4 (a + b) / 10⌋ + 1`. Keeping such a
/// subsequence, each character of a name outside it breaks at most two of the name's
/// bigrams and each query character outside it splits at most one more, so the two share
/// at least `3L − a − b − 1` bigrams (as multisets). Names with fewer shared bigrams cannot
/// qualify; when the bound is not positive (very short strings) every name of that length
/// is a candidate. Like `GramPostings`, lists only grow and may name stale documents.
struct NameBigrams {
    /// A bigram of names of one length: a query reads only the lengths that can pass, not
    /// every posting of a common bigram (whose staleness check was a cache miss each).
    private struct ListKey: Hashable {
        var bigram: UInt64
        var nameLength: Int32
    }

    private var lists: [ListKey: [(document: Int32, count: UInt16)]] = [:]
    private var byLength: [Int: [Int32]] = [:]
    /// Each document's current name length (postings with another length are stale).
    private var nameLengths: [Int32] = []
    /// Per document, the bigrams a query shares with its name: all zero between queries,
    /// kept so a query does not allocate and zero one (hundreds of KiB at 100 k entities).
    private var sharedScratch: [UInt32] = []

    /// Adds a document's lower-cased name.
    mutating func add(_ document: Int32, name: [UInt32]) {
        if nameLengths.count <= Int(document) {
            nameLengths.append(
                contentsOf: Array(repeating: -1, count: Int(document) + 1 - nameLengths.count))
        }
        nameLengths[Int(document)] = Int32(clamping: name.count)
        byLength[name.count, default: []].append(document)
        let length = Int32(clamping: name.count)
        for (bigram, count) in Self.bigrams(name) {
            lists[ListKey(bigram: bigram, nameLength: length), default: []].append(
                (document, UInt16(clamping: count)))
        }
    }

    /// Forgets a deleted document (its postings become stale).
    mutating func remove(_ document: Int32) {
        if Int(document) < nameLengths.count { nameLengths[Int(document)] = -1 }
    }

    private static func bigrams(_ text: [UInt32]) -> [UInt64: Int] {
        var counts: [UInt64: Int] = [:]
        if text.count >= 2 {
            for index in 0..<(text.count - 1) {
                counts[UInt64(text[index]) << 32 | UInt64(text[index + 1]), default: 0] += 1
            }
        }
        return counts
    }

    /// The smallest common-subsequence length that lets a name of `nameLength` pass.
    static func minimumCommon(_ nameLength: Int, _ queryLength: Int) -> Int {
        4 * (nameLength + queryLength) / 10 + 1
    }

    /// Documents whose current name may have ratio > 0.8 with `query`, sorted.
    mutating func candidates(for query: [UInt32]) -> [Int32] {
        let queryLength = query.count
        // ratio ≤ 2·min(a, b) / (a + b): outside this window no name can pass.
        let lengths = (queryLength * 2 / 3)...(queryLength * 3 / 2 + 1)
        var result: [Int32] = []
        // The lengths whose names need enough shared bigrams, and how many. Only lengths
        // some name has: the lookups below are one per bigram of the query and length.
        var counted: [(length: Int32, needed: Int)] = []
        for length in lengths where !(byLength[length]?.isEmpty ?? true) {
            let common = Self.minimumCommon(length, queryLength)
            guard common <= min(length, queryLength) else { continue }
            let needed = 3 * common - length - queryLength - 1
            if needed <= 0 {
                result.append(
                    contentsOf: (byLength[length] ?? []).filter {
                        nameLengths[Int($0)] == Int32(length)
                    })
            } else {
                counted.append((Int32(length), needed))
            }
        }
        if !counted.isEmpty {
            var shared = sharedScratch
            sharedScratch = []  // so the writes below find the array unshared
            if shared.count < nameLengths.count {
                shared.append(
                    contentsOf: Array(repeating: 0, count: nameLengths.count - shared.count))
            }
            let queryBigrams = Self.bigrams(query)
            for (length, needed) in counted {
                var touched: [Int32] = []
                for (bigram, queryCount) in queryBigrams {
                    for posting in lists[ListKey(bigram: bigram, nameLength: length)] ?? []
                    where nameLengths[Int(posting.document)] == length {
                        let slot = Int(posting.document)
                        if shared[slot] == 0 { touched.append(posting.document) }
                        shared[slot] &+= UInt32(min(queryCount, Int(posting.count)))
                    }
                }
                for document in touched {
                    if Int(shared[Int(document)]) >= needed { result.append(document) }
                    shared[Int(document)] = 0
                }
            }
            sharedScratch = shared
        }
        result.sort()
        var kept: [Int32] = []
        kept.reserveCapacity(result.count)
        for document in result where kept.last != document { kept.append(document) }
        return kept
    }
}
