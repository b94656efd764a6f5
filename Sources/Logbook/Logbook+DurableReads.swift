/// Reads that serve only what a crash keeps.
///
/// The state in memory runs ahead of the log's durable end: a merge is applied, appended and
/// then synced, and a read in between sees it. A change served then and lost to a crash
/// before the sync is held by the client but no longer by the node, which may give its
/// versions to other writes (docs/shipping.md#what-is-served). So a read that leaves the
/// process (an HTTP answer) is gathered, then `makeAppendedDurable()` is awaited, then the
/// answer is sent.
extension Logbook {
    /// The failure that stopped this instance's writes, or nil while it is sound. A failed
    /// instance's state may hold changes its log lost: serve nothing from it.
    public var writeFailure: LogbookError? { locked { failure } }

    /// Returns once every record appended before the call is durable: whatever a read made
    /// before it saw (every change in memory was appended under the lock that applied it).
    /// Shares a group commit's sync when there is one, else `fdatasync`s on the caller's
    /// thread, and returns at once when nothing is pending.
    ///
    /// Throws this instance's failure, from before the call or from the sync: an answer
    /// read from it may hold changes no crash would keep.
    public nonisolated(nonsending) func makeAppendedDurable() async throws(LogbookError) {
        let pending: (failed: LogbookError?, end: UInt64, isDurable: Bool) = locked {
            (self.failure, log.nextOffset, log.durableOffset >= log.nextOffset)
        }
        if let failed = pending.failed { throw failed }
        guard !pending.isDurable else { return }
        if let committer {
            try await waitUntilDurable(pending.end, committer)
        } else {
            try sync()
        }
        if let failure = writeFailure { throw failure }
    }
}
