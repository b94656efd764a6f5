/// Candidates by decreasing score bound, ties by slot (insertion order): a binary heap, so
/// a query that stops after a few hundred candidates never sorts the rest.
struct BoundQueue {
    private var items: [(slot: Int32, bound: Double, refined: Bool)] = []

    mutating func append(_ slot: Int32, bound: Double, refined: Bool) {
        items.append((slot, bound, refined))
    }

    /// Adds one item to a heapified queue.
    mutating func push(_ slot: Int32, bound: Double, refined: Bool) {
        items.append((slot, bound, refined))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(child, parent) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private func before(_ a: Int, _ b: Int) -> Bool {
        items[a].bound != items[b].bound
            ? items[a].bound > items[b].bound : items[a].slot < items[b].slot
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            var best = left
            if left + 1 < items.count && before(left + 1, left) { best = left + 1 }
            guard before(best, parent) else { return }
            items.swapAt(parent, best)
            parent = best
        }
    }

    mutating func heapify() {
        for index in stride(from: items.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    mutating func popBest() -> (slot: Int32, bound: Double, refined: Bool)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(0)
        }
        return first
    }
}
