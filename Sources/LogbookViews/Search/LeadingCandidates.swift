/// The `capacity` candidates with the highest score bounds seen so far (ties: the lower
/// slot, the first seen when slots arrive in order). Search scores these exactly first:
/// the `limit`-th best of their real scores is a floor under the final `limit`-th score,
/// so every candidate whose bound is below it can be dropped before the queue is built.
struct LeadingCandidates {
    let capacity: Int
    private(set) var slots: [Int32] = []
    private var bounds: [Double] = []
    /// The index of the weakest kept candidate, once full.
    private var weakest = 0

    init(capacity: Int) {
        self.capacity = capacity
        slots.reserveCapacity(capacity)
        bounds.reserveCapacity(capacity)
    }

    /// Offers a candidate; slots must arrive in increasing order.
    mutating func offer(_ slot: Int32, bound: Double) {
        if slots.count < capacity {
            slots.append(slot)
            bounds.append(bound)
            if slots.count == capacity { findWeakest() }
            return
        }
        guard bound > bounds[weakest] else { return }  // an equal bound keeps the earlier slot
        slots[weakest] = slot
        bounds[weakest] = bound
        findWeakest()
    }

    /// The lowest bound, and among equals the latest slot.
    private mutating func findWeakest() {
        var index = 0
        for candidate in bounds.indices.dropFirst()
        where bounds[candidate] < bounds[index]
            || (bounds[candidate] == bounds[index] && slots[candidate] > slots[index])
        {
            index = candidate
        }
        weakest = index
    }
}
