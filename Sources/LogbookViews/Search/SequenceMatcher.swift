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
        let total = a.count + b.count
        guard total > 0 else { return 1 }
        return 2.0 * Double(matchingCharacters(a, b)) / Double(total)
    }

    /// The total size of the matching blocks.
    public static func matchingCharacters(_ a: [UInt32], _ b: [UInt32]) -> Int {
        var positionsInB: [UInt32: [Int]] = [:]
        for (index, element) in b.enumerated() { positionsInB[element, default: []].append(index) }
        if b.count >= 200 {
            let limit = b.count / 100 + 1
            positionsInB = positionsInB.filter { $0.value.count <= limit }
        }
        var matched = 0
        var pending = [(0, a.count, 0, b.count)]
        while let (aLow, aHigh, bLow, bHigh) = pending.popLast() {
            let (i, j, size) = longestMatch(a, b, positionsInB, aLow, aHigh, bLow, bHigh)
            guard size > 0 else { continue }
            matched += size
            if aLow < i && bLow < j { pending.append((aLow, i, bLow, j)) }
            if i + size < aHigh && j + size < bHigh {
                pending.append((i + size, aHigh, j + size, bHigh))
            }
        }
        return matched
    }

    private static func longestMatch(
        _ a: [UInt32], _ b: [UInt32], _ positionsInB: [UInt32: [Int]],
        _ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int
    ) -> (Int, Int, Int) {
        var bestI = aLow
        var bestJ = bLow
        var bestSize = 0
        // Lengths of the matches ending at (i - 1, j), keyed by j, as difflib's j2len.
        var previous: [Int: Int] = [:]
        for i in aLow..<aHigh {
            var current: [Int: Int] = [:]
            for j in positionsInB[a[i]] ?? [] {
                if j < bLow { continue }
                if j >= bHigh { break }
                let length = (previous[j - 1] ?? 0) + 1
                current[j] = length
                if length > bestSize {
                    bestI = i - length + 1
                    bestJ = j - length + 1
                    bestSize = length
                }
            }
            previous = current
        }
        // Without a junk predicate nothing is junk, so difflib extends the match over any
        // equal elements on both sides — popular ones included.
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
        return (bestI, bestJ, bestSize)
    }
}
