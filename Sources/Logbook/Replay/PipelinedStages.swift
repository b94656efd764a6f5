import Foundation
import LogbookStorage

/// Two stages on two cores: `produce` runs on a thread of its own and hands items to
/// `consume`, which runs on the caller's thread, in order, through a queue of at most `depth`
/// items (so memory stays bounded when the consumer is the slower stage). Used where reading
/// and decoding batches can overlap applying them (replay, snapshot loading).
///
/// Errors: the first one thrown by either stage stops both; items produced before a
/// producer error are consumed first, as a sequential loop would have applied them.
/// `inline` runs both stages on the caller's thread (for small inputs, where a thread costs
/// more than it saves).
enum PipelinedStages {
    static func run<Item: Sendable>(
        inline: Bool, depth: Int = 4,
        produce: @escaping (_ emit: (Item) -> Bool) throws -> Void,
        consume: (Item) throws -> Void
    ) throws {
        if inline {
            var failure: (any Error)?
            try produce { item in
                do { try consume(item) } catch {
                    failure = error
                    return false
                }
                return true
            }
            if let failure { throw failure }
            return
        }
        let queue = HandOffQueue<Item>(depth: max(1, depth))
        let producer = UncheckedSendable(produce)
        Thread.startNamed("logbook-reader") {
            do {
                try producer.value { queue.put($0) }
                queue.finish(nil)
            } catch {
                queue.finish(error)
            }
        }
        defer { queue.waitUntilProducerDone() }
        do {
            while let item = try queue.take() {
                try consume(item)
                queue.retire(consume item)
            }
        } catch {
            queue.cancel()
            throw error
        }
    }
}

/// The bounded queue between the two stages (guarded by one condition).
///
/// Items the consumer is done with come back to it (`retire`), and the producer drops them
/// at its next `put`: destroying a decoded batch (a `Change`'s value witness per change) was
/// a quarter of the restoring thread's instructions, and that thread is the slower stage.
private final class HandOffQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private let depth: Int
    /// Taken items leave nil behind, so that the queue keeps no reference to them.
    private var items: [Item?] = []
    private var head = 0
    private var retired: [Item] = []
    private var finished = false
    private var cancelled = false
    private var producerDone = false
    private var failure: (any Error)?

    init(depth: Int) { self.depth = depth }

    /// Adds an item, waiting while the queue is full; false when the consumer gave up.
    /// Drops the items retired since the last call, after letting go of the lock.
    func put(_ item: Item) -> Bool {
        var done: [Item] = []
        condition.lock()
        while items.count - head >= depth && !cancelled { condition.wait() }
        let accepted = !cancelled
        if accepted {
            items.append(item)
            swap(&done, &retired)
            condition.broadcast()
        }
        condition.unlock()
        done.removeAll()
        return accepted
    }

    /// Hands back an item the consumer is done with, for the producer to drop.
    func retire(_ item: consuming Item) {
        condition.lock()
        retired.append(item)
        condition.unlock()
    }

    /// The producer is done, with its error if it failed.
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        producerDone = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next item; nil once the producer finished and everything was taken; throws the
    /// producer's error after the items it produced before it.
    func take() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !finished { condition.wait() }
        if head < items.count, let item = items[head].take() {
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            return item
        }
        if let failure { throw failure }
        return nil
    }

    /// The consumer stops: a waiting or later `put` returns false.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the producer's thread has left its loop (nothing touches the caller's
    /// objects after this).
    func waitUntilProducerDone() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}

/// Moves a value the caller guarantees is used by one thread at a time to another thread.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
