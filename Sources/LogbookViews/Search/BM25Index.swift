import Foundation

/// Okapi BM25 over tokens (runs of letters and digits of the lower-cased text), kept exact
/// under updates: a document's old terms are removed before its new ones are added.
///
/// score(D, Q) = Σ over query terms t of idf(t) · f(t, D) · (k1 + 1) /
/// (f(t, D) + k1 · (1 − b + b · |D| / avgdl)), with idf(t) = ln((N − n(t) + 0.5) /
/// (n(t) + 0.5) + 1), k1 = 1.2 and b = 0.75.
///
/// Terms are interned once; each term's postings are a flat array, and each document keeps
/// where its postings sit, so removing a document swaps each of its postings out in O(1)
/// instead of searching lists. Scores accumulate in a dense array reused across queries
/// (the slots touched are reset afterwards), so a query costs its postings, not the corpus.
struct BM25Index {
    static let k1 = 1.2
    static let b = 0.75

    /// One document's count of one term. `termIndex` locates the matching `DocumentTerm`,
    /// so a posting moved by a removal can update its position there.
    private struct Posting {
        var document: Int32
        var count: Int32
        var termIndex: Int32
    }

    /// One term of a document and where its posting sits in the term's list.
    private struct DocumentTerm {
        var term: Int32
        var position: Int32
    }

    private var termIds: [String: Int32] = [:]
    private var postings: [[Posting]] = []
    /// By document slot: its terms (empty when absent).
    private var documentTerms: [[DocumentTerm]] = []
    /// By document slot: its length in tokens, -1 when absent.
    private var lengths: [Int32] = []
    private var documentCount = 0
    private var totalLength = 0
    /// Per-query scratch: a score per slot, zero outside a query.
    private var accumulator: [Double] = []

    /// The terms of `text` (a query, a model's text): lower-cased, then letter-or-digit
    /// runs.
    static func tokens(lowercasing text: String) -> [String] {
        tokens(text.lowercased().unicodeScalars.map(\.value))
    }

    /// Letter-or-digit runs of already lower-cased text.
    static func tokens(_ text: [UInt32]) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        for value in text {
            if let scalar = Unicode.Scalar(value), isTokenScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                result.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { result.append(String(current)) }
        return result
    }

    /// A letter or a digit; ASCII is decided without the Unicode property tables.
    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x61...0x7A).contains(value)
                || (0x41...0x5A).contains(value)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// Indexes `document` with `tokens`, replacing what it held.
    mutating func add(_ document: Int32, tokens: [String]) {
        remove(document)
        let slot = Int(document)
        if lengths.count <= slot {
            lengths.append(contentsOf: Array(repeating: -1, count: slot + 1 - lengths.count))
            documentTerms.append(
                contentsOf: Array(repeating: [], count: slot + 1 - documentTerms.count))
        }
        var ids: [Int32] = []
        ids.reserveCapacity(tokens.count)
        for token in tokens { ids.append(termId(token)) }
        ids.sort()
        var terms: [DocumentTerm] = []
        var index = 0
        while index < ids.count {
            let term = ids[index]
            var end = index + 1
            while end < ids.count && ids[end] == term { end += 1 }
            let position = Int32(postings[Int(term)].count)
            postings[Int(term)].append(
                Posting(
                    document: document, count: Int32(end - index),
                    termIndex: Int32(terms.count)))
            terms.append(DocumentTerm(term: term, position: position))
            index = end
        }
        documentTerms[slot] = terms
        lengths[slot] = Int32(clamping: tokens.count)
        documentCount += 1
        totalLength += tokens.count
    }

    private mutating func termId(_ token: String) -> Int32 {
        if let id = termIds[token] { return id }
        let id = Int32(postings.count)
        termIds[token] = id
        postings.append([])
        return id
    }

    /// Forgets `document` (nothing when it is not indexed).
    mutating func remove(_ document: Int32) {
        let slot = Int(document)
        guard slot < lengths.count, lengths[slot] >= 0 else { return }
        for entry in documentTerms[slot] {
            let term = Int(entry.term)
            let position = Int(entry.position)
            let last = postings[term].removeLast()
            if position < postings[term].count {
                postings[term][position] = last
                documentTerms[Int(last.document)][Int(last.termIndex)].position = entry.position
            }
        }
        documentTerms[slot] = []
        totalLength -= Int(lengths[slot])
        lengths[slot] = -1
        documentCount -= 1
    }

    /// Calls `body` with each document holding at least one query term and its score.
    /// Each document's terms are summed in the sorted order of the distinct query terms, so
    /// scores are the same whatever order documents were indexed in.
    mutating func scores(for queryTokens: [String], _ body: (Int32, Double) -> Void) {
        let count = Double(documentCount)
        guard count > 0 else { return }
        let averageLength = max(1, Double(totalLength) / count)
        if accumulator.count < lengths.count {
            accumulator.append(
                contentsOf: Array(repeating: 0, count: lengths.count - accumulator.count))
        }
        var touched: [Int32] = []
        for token in Set(queryTokens).sorted() {
            guard let term = termIds[token] else { continue }
            let list = postings[Int(term)]
            guard !list.isEmpty else { continue }
            let frequency = Double(list.count)
            let idf = log((count - frequency + 0.5) / (frequency + 0.5) + 1)
            for posting in list {
                let tf = Double(posting.count)
                let length = Double(lengths[Int(posting.document)])
                let norm = tf + Self.k1 * (1 - Self.b + Self.b * length / averageLength)
                let slot = Int(posting.document)
                if accumulator[slot] == 0 { touched.append(posting.document) }
                accumulator[slot] += idf * tf * (Self.k1 + 1) / norm
            }
        }
        for document in touched {
            body(document, accumulator[Int(document)])
            accumulator[Int(document)] = 0
        }
    }
}
