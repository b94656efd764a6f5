import Foundation

/// Okapi BM25 over tokens (runs of letters and digits of the lower-cased text), kept exact
/// under updates: a document's old terms are subtracted before its new ones are added.
///
/// score(D, Q) = Σ over query terms t of idf(t) · f(t, D) · (k1 + 1) /
/// (f(t, D) + k1 · (1 − b + b · |D| / avgdl)), with idf(t) = ln((N − n(t) + 0.5) /
/// (n(t) + 0.5) + 1), k1 = 1.2 and b = 0.75.
struct BM25Index {
    static let k1 = 1.2
    static let b = 0.75

    private var postings: [String: [Int32: Int]] = [:]
    private var terms: [Int32: [String: Int]] = [:]
    private var lengths: [Int32: Int] = [:]
    private var totalLength = 0

    /// Letter-or-digit runs of already lower-cased text.
    static func tokens(_ text: [UInt32]) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        for value in text {
            if let scalar = Unicode.Scalar(value),
                scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            {
                current.append(scalar)
            } else if !current.isEmpty {
                result.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { result.append(String(current)) }
        return result
    }

    mutating func add(_ document: Int32, tokens: [String]) {
        remove(document)
        var counts: [String: Int] = [:]
        for token in tokens { counts[token, default: 0] += 1 }
        for (term, count) in counts { postings[term, default: [:]][document] = count }
        terms[document] = counts
        lengths[document] = tokens.count
        totalLength += tokens.count
    }

    mutating func remove(_ document: Int32) {
        guard let counts = terms.removeValue(forKey: document) else { return }
        for term in counts.keys {
            postings[term]?[document] = nil
            if postings[term]?.isEmpty == true { postings[term] = nil }
        }
        totalLength -= lengths.removeValue(forKey: document) ?? 0
    }

    /// Scores of every document holding at least one query term.
    func scores(for queryTokens: [String]) -> [Int32: Double] {
        let count = Double(lengths.count)
        guard count > 0 else { return [:] }
        let averageLength = max(1, Double(totalLength) / count)
        var scores: [Int32: Double] = [:]
        for term in Set(queryTokens).sorted() {  // a fixed order: the same sums every run
            guard let list = postings[term] else { continue }
            let frequency = Double(list.count)
            let idf = log((count - frequency + 0.5) / (frequency + 0.5) + 1)
            for (document, termCount) in list {
                let tf = Double(termCount)
                let length = Double(lengths[document] ?? 0)
                let norm = tf + Self.k1 * (1 - Self.b + Self.b * length / averageLength)
                scores[document, default: 0] += idf * tf * (Self.k1 + 1) / norm
            }
        }
        return scores
    }
}
