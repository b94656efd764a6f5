extension Array {
    /// Reorders the array so its first `count` elements are its `count` smallest, sorted;
    /// the rest follow in no particular order. Quickselect down to the prefix, then one sort
    /// of it: O(n + count log count) expected, where a full sort is O(n log n) — what paging
    /// through a large state costs once per page.
    @inlinable mutating func sortPrefix(
        _ count: Int, by areInIncreasingOrder: (Element, Element) -> Bool
    ) {
        let target = Swift.max(0, Swift.min(count, self.count))
        // On the buffer, not on `self[low..<high]`: partitioning an array's slice copied the
        // whole array on every call (a slice shares the storage, so it is not unique).
        withUnsafeMutableBufferPointer { elements in
            var low = 0
            var high = elements.count
            // Invariant: everything before `low` is at most everything in low..<high, which
            // is at most everything from `high` on, and low <= target <= high.
            while high - low > 32 && low < target && target < high {
                let pivot = Self.medianOfThree(
                    elements[low], elements[low + (high - low) / 2], elements[high - 1],
                    areInIncreasingOrder)
                let split = elements[low..<high].partition { !areInIncreasingOrder($0, pivot) }
                if split > low {
                    if target <= split { high = split } else { low = split }
                } else {
                    // Nothing below the pivot: move the elements equal to it to the front.
                    let equalEnd = elements[low..<high].partition {
                        areInIncreasingOrder(pivot, $0)
                    }
                    if target <= equalEnd {
                        high = equalEnd  // the prefix ends among equal elements
                        break
                    }
                    low = equalEnd
                }
            }
            // Everything before `low` is at most the rest: when the prefix ends there, sort
            // only it.
            elements[0..<(target <= low ? target : high)].sort(by: areInIncreasingOrder)
        }
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
