extension Array {
    /// Reorders the array so its first `count` elements are its `count` smallest, sorted;
    /// the rest follow in no particular order. Quickselect down to the prefix, then one sort
    /// of it: O(n + count log count) expected, where a full sort is O(n log n) — what paging
    /// through a large state costs once per page.
    @inlinable mutating func sortPrefix(
        _ count: Int, by areInIncreasingOrder: (Element, Element) -> Bool
    ) {
        let target = Swift.max(0, Swift.min(count, self.count))
        var low = 0
        var high = self.count
        // Invariant: everything before `low` is at most everything in low..<high, which is
        // at most everything from `high` on, and low <= target <= high.
        while high - low > 32 && low < target && target < high {
            let pivot = Self.medianOfThree(
                self[low], self[low + (high - low) / 2], self[high - 1], areInIncreasingOrder)
            let split = self[low..<high].partition { !areInIncreasingOrder($0, pivot) }
            if split > low {
                if target <= split { high = split } else { low = split }
            } else {
                // Nothing below the pivot: move the elements equal to it to the front.
                let equalEnd = self[low..<high].partition { areInIncreasingOrder(pivot, $0) }
                if target <= equalEnd {
                    high = equalEnd  // the prefix ends among equal elements: no more to split
                    break
                }
                low = equalEnd
            }
        }
        // Everything before `low` is at most the rest: when the prefix ends there, sort only it.
        self[0..<(target <= low ? target : high)].sort(by: areInIncreasingOrder)
    }

    @inlinable static func medianOfThree(
        _ a: Element, _ b: Element, _ c: Element, _ less: (Element, Element) -> Bool
    ) -> Element {
        if less(a, b) {
            if less(b, c) { return b }
            return less(a, c) ? c : a
        }
        if less(a, c) { return a }
        return less(b, c) ? c : b
    }
}
