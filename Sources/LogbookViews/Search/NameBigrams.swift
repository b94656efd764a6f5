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

    /// Adds a document's lower-cased name.
    mutating func add(_ document: Int32, name: [UInt32]) {
        byLength[name.count, default: []].append(document)
        for (bigram, count) in Self.bigrams(name) {
            lists[bigram, default: []].append(
                (document, UInt16(clamping: count), Int32(clamping: name.count)))
        }
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

    /// Documents whose name may have ratio > 0.8 with `query`, given each document's current
    /// name length (stale postings are dropped by the caller's verification).
    func candidates(for query: [UInt32]) -> Set<Int32> {
        let queryLength = query.count
        // ratio ≤ 2·min(a, b) / (a + b): outside this window no name can pass.
        let lengths = (queryLength * 2 / 3)...(queryLength * 3 / 2 + 1)
        var result: Set<Int32> = []
        var counted: [Int64: Int] = [:]  // (document, name length) → shared bigrams
        var needsCounts = false
        for length in lengths {
            let common = Self.minimumCommon(length, queryLength)
            guard common <= min(length, queryLength) else { continue }
            if 3 * common - length - queryLength - 1 <= 0 {
                result.formUnion(byLength[length] ?? [])
            } else {
                needsCounts = true
            }
        }
        guard needsCounts else { return result }
        for (bigram, queryCount) in Self.bigrams(query) {
            for posting in lists[bigram] ?? [] where lengths.contains(Int(posting.nameLength)) {
                let key = Int64(posting.document) << 32 | Int64(posting.nameLength)
                counted[key, default: 0] += min(queryCount, Int(posting.count))
            }
        }
        for (key, shared) in counted {
            let length = Int(key & 0xFFFF_FFFF)
            let common = Self.minimumCommon(length, queryLength)
            guard common <= min(length, queryLength) else { continue }
            if shared >= 3 * common - length - queryLength - 1 {
                result.insert(Int32(truncatingIfNeeded: key >> 32))
            }
        }
        return result
    }
}
