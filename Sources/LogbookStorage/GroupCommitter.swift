import Foundation

/// Lets many concurrent appenders share one `fdatasync`.
///
/// Appenders add their records to the log under the engine's lock, then `await
/// waitUntilDurable(offset)`. A dedicated thread (not the cooperative pool, which must never
/// block on a sync) loops: take the engine's lock just long enough to write the pending
/// batch (`flushForSync`), `fdatasync` outside the lock while new appends pile up, then
/// resume every waiter the sync covered. Under load one sync covers everything appended
/// while the previous one ran: the batch grows with the load, and no timer adds latency.
/// `maxDelayNanoseconds` optionally waits a little before each sync to gather more.
///
/// Isolation: thread-safe; state is guarded by one condition lock.
public final class GroupCommitter: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `condition`.
    /// What a flush left to do: sync `file` to make everything below `offset` durable, or
    /// nothing, everything below `offset` being durable already (possibly by a sync made
    /// outside the committer, such as an explicit one: waiters it covers resume at once).
    public enum SyncTarget {
        case sync(file: any StorageFile, offset: UInt64)
        case durable(UInt64)
    }
    /// Writes pending records under the owner's lock; returns what is left to sync.
    public typealias FlushForSync = @Sendable () throws(StorageError) -> SyncTarget
    /// Records, under the owner's lock, that a sync covering an offset completed.
    public typealias NoteDurable = @Sendable (UInt64) -> Void

    private struct Waiter {
        var offset: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let condition = NSCondition()
    private let flushForSync: FlushForSync
    private let noteDurable: NoteDurable
    private let maxDelayNanoseconds: UInt64
    private var waiters: [Waiter] = []
    private let metrics = StorageMetrics()
    private var durableOffset: UInt64
    private var failure: StorageError?
    private var isStopping = false
    private var isStopped = false
    /// Syncs performed, for statistics.
    public private(set) var syncCount = 0

    /// Starts the committer thread. `flushForSync` runs under the caller's lock and returns
    /// the file to sync and the offset the sync will cover (or the offset already durable);
    /// `noteDurable` records a completed sync under that lock.
    public init(
        durableOffset: UInt64, maxDelayNanoseconds: UInt64 = 0,
        flushForSync: @escaping FlushForSync,
        noteDurable: @escaping NoteDurable
    ) {
        self.durableOffset = durableOffset
        self.maxDelayNanoseconds = maxDelayNanoseconds
        self.flushForSync = flushForSync
        self.noteDurable = noteDurable
        let thread = Thread { [self] in run() }
        thread.name = "logbook-group-commit"
        thread.start()
    }

    /// Returns once every record below `offset` is durable; throws the sync error if the
    /// sync covering it failed (the log should then be treated as failed).
    public func waitUntilDurable(_ offset: UInt64) async throws {
        try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Void, any Error>) in
            condition.lock()
            defer { condition.unlock() }
            if let failure {
                continuation.resume(throwing: failure)
            } else if offset <= durableOffset {
                continuation.resume()
            } else if isStopping {
                continuation.resume(throwing: StorageError(.closed, "group committer stopped"))
            } else {
                waiters.append(Waiter(offset: offset, continuation: continuation))
                condition.signal()
            }
        }
    }

    /// Syncs what is pending, resumes the last waiters and stops the thread. Idempotent.
    public func stop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        while !isStopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            while waiters.isEmpty && !isStopping { condition.wait() }
            if waiters.isEmpty && isStopping { break }
            condition.unlock()
            if maxDelayNanoseconds > 0 {
                Thread.sleep(forTimeInterval: Double(maxDelayNanoseconds) / 1e9)
            }
            let outcome = syncOnce()
            condition.lock()
            switch outcome {
            case .success(let (offset, synced)):
                if synced { syncCount += 1 }
                durableOffset = max(durableOffset, offset)
            case .failure(let error):
                failure = error
            }
            resumeCoveredWaiters()
        }
        isStopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Returns the offset now durable and whether a sync was needed for it.
    private func syncOnce() -> Result<(UInt64, Bool), StorageError> {
        do throws(StorageError) {
            switch try flushForSync() {
            case .durable(let offset):
                return .success((offset, false))
            case .sync(let file, let offset):
                let started = ContinuousClock.now
                try file.sync()
                metrics.syncDuration.record(since: started)
                noteDurable(offset)
                return .success((offset, true))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Called with the lock held.
    private func resumeCoveredWaiters() {
        var remaining: [Waiter] = []
        defer { metrics.groupCommitAppenders.record(waiters.count - remaining.count) }
        for waiter in waiters {
            if let failure {
                waiter.continuation.resume(throwing: failure)
            } else if waiter.offset <= durableOffset {
                waiter.continuation.resume()
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining
    }
}
