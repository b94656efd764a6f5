extension Logbook {
    /// A stream of every commit from now on — local writes, transactions and accepted
    /// merges — each delivered once it holds per the durability mode (synced, with group
    /// commit), in log order, outside the engine's lock. The loop that reads it may read
    /// and write this Logbook; what it writes arrives on the stream in turn.
    ///
    /// Unbounded by default, so nothing is missed; an observer that only needs to know
    /// that something changed may pass `.bufferingNewest(1)`. The stream ends when the
    /// Logbook closes; cancelling the task that reads it stops its deliveries.
    public func committedChanges(
        bufferingPolicy: AsyncStream<CommittedChanges>.Continuation.BufferingPolicy =
            .unbounded
    ) -> AsyncStream<CommittedChanges> {
        observers.add(bufferingPolicy: bufferingPolicy)
    }
}
