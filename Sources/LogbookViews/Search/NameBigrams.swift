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
    private var lists: [UInt64: [(document: Int32, count: UInt16, nameLength: Int32)]] = [:]
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
                contentsOf: repeatElement(-1, count: Int(document) + 1 - nameLengths.count))
        }
        nameLengths[Int(document)] = Int32(clamping: name.count)
        byLength[name.count, default: []].append(document)
        for (bigram, count) in Self.bigrams(name) {
            lists[bigram, default: []].append(
                (document, UInt16(clamping: count), Int32(clamping: name.count)))
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
        var needsCounts = false
        for length in lengths {
            let common = Self.minimumCommon(length, queryLength)
            guard common <= min(length, queryLength) else { continue }
            if 3 * common - length - queryLength - 1 <= 0 {
                result.append(
                    contentsOf: (byLength[length] ?? []).filter {
                        nameLengths[Int($0)] == Int32(length)
                    })
            } else {
                needsCounts = true
            }
        }
        if needsCounts {
            var shared = sharedScratch
            sharedScratch = []  // so the writes below find the array unshared
            if shared.count < nameLengths.count {
                shared.append(contentsOf: repeatElement(0, count: nameLengths.count - shared.count))
            }
            var touched: [Int32] = []
            for (bigram, queryCount) in Self.bigrams(query) {
                for posting in lists[bigram] ?? []
                where nameLengths[Int(posting.document)] == posting.nameLength
                    && lengths.contains(Int(posting.nameLength))
                {
                    let slot = Int(posting.document)
                    if shared[slot] == 0 { touched.append(posting.document) }
                    shared[slot] &+= UInt32(min(queryCount, Int(posting.count)))
                }
            }
            for document in touched {
                let length = Int(nameLengths[Int(document)])
                let common = Self.minimumCommon(length, queryLength)
                guard common <= min(length, queryLength) else { continue }
                let needed = 3 * common - length - queryLength - 1
                if needed > 0 && Int(shared[Int(document)]) >= needed { result.append(document) }
            }
            for document in touched { shared[Int(document)] = 0 }
            sharedScratch = shared
        }
        result.sort()
        var kept: [Int32] = []
        kept.reserveCapacity(result.count)
        for document in result where kept.last != document { kept.append(document) }
        return kept
    }
}
