/// Ratcliff/Obershelp similarity exactly as Python's `difflib.SequenceMatcher(None, a, b)`
/// computes `ratio()`, over Unicode scalars (Python compares code points).
///
/// The rules that decide the figure, all kept: the longest matching block is found with the
/// lowest index in `a`, then in `b`, among equals; blocks left and right of it are matched
/// recursively; and with `autojunk`, when `b` has 200 or more elements, every element
/// occurring more than `len(b) / 100 + 1` times is "popular" and cannot start or seed a
/// match, though a match found from other elements may still be extended across it.
public enum SequenceMatcher {
    /// `2 * matches / (len(a) + len(b))`, or 1 when both are empty.
    public static func ratio(_ a: String, _ b: String) -> Double {
        ratio(Array(a.unicodeScalars.map(\.value)), Array(b.unicodeScalars.map(\.value)))
    }

    /// The same over scalar values.
    public static func ratio(_ a: [UInt32], _ b: [UInt32]) -> Double {
        Prepared(b).ratio(a)
    }

    /// `b` indexed once (difflib's `b2j`, popular elements removed), to compare many `a`
    /// with it — search compares every candidate name with one query.
    public struct Prepared: Sendable {
        let b: [UInt32]
        let positionsInB: [UInt32: [Int]]

        /// Indexes `b`.
        public init(_ b: [UInt32]) {
            self.b = b
            var positions: [UInt32: [Int]] = [:]
            for (index, element) in b.enumerated() { positions[element, default: []].append(index) }
            if b.count >= 200 {
                let limit = b.count / 100 + 1
                positions = positions.filter { $0.value.count <= limit }
            }
            positionsInB = positions
        }

        /// The ratio of `a` with the prepared `b`.
        public func ratio(_ a: [UInt32]) -> Double {
            let total = a.count + b.count
            guard total > 0 else { return 1 }
            return 2.0 * Double(matchingCharacters(a)) / Double(total)
        }

        /// The total size of the matching blocks.
        public func matchingCharacters(_ a: [UInt32]) -> Int {
            // difflib's j2len dictionaries as two dense rows on the stack; the touched lists
            // clear them cheaply. Search calls this for many names per query.
            let width = b.count + 1
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: 4 * width) { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                base.initialize(repeating: 0, count: 4 * width)
                var previous = base
                var current = base + width
                var previousTouched = base + 2 * width
                var currentTouched = base + 3 * width
                var previousCount = 0
                var currentCount = 0
                var matched = 0
                var pending = [(0, a.count, 0, b.count)]
                while let (aLow, aHigh, bLow, bHigh) = pending.popLast() {
                    var bestI = aLow
                    var bestJ = bLow
                    var bestSize = 0
                    for i in aLow..<aHigh {
                        for j in positionsInB[a[i]] ?? [] {
                            if j < bLow { continue }
                            if j >= bHigh { break }
                            // previous[j] holds the match length ending at (i - 1, j - 1).
                            let length = previous[j] + 1
                            current[j + 1] = length
                            currentTouched[currentCount] = j + 1
                            currentCount += 1
                            if length > bestSize {
                                bestI = i - length + 1
                                bestJ = j - length + 1
                                bestSize = length
                            }
                        }
                        for index in 0..<previousCount { previous[previousTouched[index]] = 0 }
                        swap(&previous, &current)
                        swap(&previousTouched, &currentTouched)
                        previousCount = currentCount
                        currentCount = 0
                    }
                    for index in 0..<previousCount { previous[previousTouched[index]] = 0 }
                    previousCount = 0
                    // Without a junk predicate nothing is junk, so difflib extends the match
                    // over any equal elements on both sides — popular ones included.
                    while bestI > aLow, bestJ > bLow, a[bestI - 1] == b[bestJ - 1] {
                        bestI -= 1
                        bestJ -= 1
                        bestSize += 1
                    }
                    while bestI + bestSize < aHigh, bestJ + bestSize < bHigh,
                        a[bestI + bestSize] == b[bestJ + bestSize]
                    {
                        bestSize += 1
                    }
                    guard bestSize > 0 else { continue }
                    matched += bestSize
                    if aLow < bestI && bLow < bestJ { pending.append((aLow, bestI, bLow, bestJ)) }
                    if bestI + bestSize < aHigh && bestJ + bestSize < bHigh {
                        pending.append((bestI + bestSize, aHigh, bestJ + bestSize, bHigh))
                    }
                }
                return matched
            }
        }
    }
}
