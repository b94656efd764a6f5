import Foundation

/// Merges of sorted, duplicate-free slot lists.
enum SortedSlots {
    /// Slots in every one of `lists` (none when there is no list), shortest first so each
    /// step is bounded by what is left. A list with a bitmap is applied by testing a bit per
    /// slot left; a list identical to the one before it (the grams of a word that nothing
    /// else contains share one list) or to the result so far is skipped.
    static func intersection(of lists: [GramList]) -> [Int32] {
        let ordered = lists.sorted { $0.count < $1.count }
        guard var result = ordered.first?.slots else { return [] }
        var previous = result
        for list in ordered.dropFirst() {
            if result.isEmpty { break }
            defer { previous = list.slots }
            if list.count == previous.count && equal(previous, list.slots) { continue }
            if list.count == result.count && equal(result, list.slots) { continue }
            if list.hasBitmap {
                result = list.filter(result)
            } else {
                result = intersection(result, list.slots)
            }
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
                return left == right || memcmp(left, right, a.count) == 0
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
