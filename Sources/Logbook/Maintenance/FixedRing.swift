/// A first-in, first-out queue of at most `capacity` elements in a fixed ring: no allocation
/// and no shifting after `init` (compaction's look-ahead window moves once per change).
struct FixedRing<Element> {
    private var storage: [Element]
    private var head = 0
    private(set) var count = 0

    /// An empty ring; `filler` only occupies the free places.
    init(capacity: Int, filler: Element) {
        precondition(capacity > 0, "a ring holds at least one element")
        storage = [Element](repeating: filler, count: capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == storage.count }

    mutating func append(_ element: Element) {
        precondition(!isFull, "append to a full ring")
        var tail = head + count
        if tail >= storage.count { tail -= storage.count }
        storage[tail] = element
        count += 1
    }

    mutating func removeFirst() -> Element {
        precondition(!isEmpty, "removeFirst from an empty ring")
        let element = storage[head]
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
        return element
    }
}
