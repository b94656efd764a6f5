import Synchronization

/// The observers of one Logbook's commits and the commits not yet delivered to them.
///
/// Commits are queued under the engine's lock, in log order (`enqueue`), and delivered by
/// whichever writer learns first that they hold (`deliver(through:)`): its own wait for
/// durability covers every commit before its own. Delivery yields to each observer's stream
/// under this type's mutex only, so that two writers never deliver out of order, and
/// never under the engine's lock: an observer may read and write the Logbook.
///
/// Lock order: the engine's lock, then this mutex (enqueue); never the other way.
final class ChangeObservers: Sendable {
    private struct State {
        var streams: [UInt64: AsyncStream<CommittedChanges>.Continuation] = [:]
        var nextId: UInt64 = 0
        var queue: [MergedChanges] = []
        var isFinished = false
    }

    private let state = Mutex(State())
    /// How many observers there are, read by every write without a lock.
    private let count = Atomic<Int>(0)

    /// True when someone observes; a write that finds none queues nothing.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// A new observer's stream; it ends when the Logbook closes.
    func add(
        bufferingPolicy: AsyncStream<CommittedChanges>.Continuation.BufferingPolicy
    ) -> AsyncStream<CommittedChanges> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CommittedChanges.self, bufferingPolicy: bufferingPolicy)
        let id: UInt64? = state.withLock { state in
            guard !state.isFinished else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.streams[id] = continuation
            count.add(1, ordering: .relaxed)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    /// Queues a commit that accepted changes for delivery. Called under the engine's lock,
    /// in log order.
    func enqueue(_ commit: MergedChanges) {
        state.withLock { $0.queue.append(commit) }
    }

    /// Delivers, in order, every queued commit whose records end at or before `offset`,
    /// which the caller knows to hold per the durability mode.
    func deliver(through offset: UInt64) {
        state.withLock { state in
            let readyCount = state.queue.prefix { $0.offsets.upperBound <= offset }.count
            guard readyCount > 0 else { return }
            let ready = state.queue[..<readyCount]
            defer { state.queue.removeFirst(readyCount) }
            for commit in ready {
                let delivered = CommittedChanges(changes: commit.accepted, offsets: commit.offsets)
                for continuation in state.streams.values { continuation.yield(delivered) }
            }
        }
    }

    /// Ends every stream; called when the Logbook closes.
    func finish() {
        let streams = state.withLock { state in
            state.isFinished = true
            state.queue = []
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        count.store(0, ordering: .relaxed)
        // Outside the mutex: a stream's termination handler takes it.
        for continuation in streams { continuation.finish() }
    }

    private func remove(_ id: UInt64) {
        state.withLock { state in
            if state.streams.removeValue(forKey: id) != nil {
                count.subtract(1, ordering: .relaxed)
            }
        }
    }
}
