import Foundation

/// Lets many concurrent appenders share `fdatasync`s, with up to `syncsInFlightMax` of them
/// running at once.
///
/// Appenders add their records to the log under the engine's lock, then `await
/// waitUntilDurable(offset)`. Dedicated threads (not the cooperative pool, which must never
/// block on a sync) each loop: when some waiter is not covered by a sync already started,
/// take the engine's lock just long enough to write the pending batch (`flushForSync`),
/// `fdatasync` outside the lock while new appends pile up, then resume every waiter the sync
/// covered. No timer adds latency; `maxDelayNanoseconds` optionally waits a little before
/// each sync to gather more.
///
/// Why more than one sync may run: with one, a writer that appends while a sync runs waits
/// for that sync and then for its own, so under steady load each writer completes one call
/// per two sync latencies and each sync carries about half of them. With a second sync
/// allowed to start while the first runs, the writer's own sync can start at once, which
/// pays where the disk takes concurrent flushes as fast as one and cores are spare. On this
/// project's 2-core test machine it did not (each sync costs CPU, and the second thread
/// wakes for nothing when one writer waits; docs/benchmarks.md), so the default is one.
/// Syncs may finish out of order: each covers everything written before it began (POSIX),
/// so the durable offset is the highest a finished sync covered.
///
/// Each thread syncs through its own handle on the file (`StorageFile.syncHandle()`): on
/// Linux a write-back error is reported once per open file description, so two syncs
/// through one handle could split an error and a success between them though both covered
/// the lost bytes. Any failure is final: every waiter then, and later, gets it.
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

    /// An appender waiting. Its continuation is unchecked: every waiter is resumed exactly
    /// once, by the call that registers it or by the thread that takes it from `waiters`
    /// (`takeWaiters`), and a checked one cost an allocation and a deinit check per append.
    private struct Waiter {
        var offset: UInt64
        var continuation: UnsafeContinuation<Void, any Error>
    }

    private let condition = NSCondition()
    private let flushForSync: FlushForSync
    private let noteDurable: NoteDurable
    private let maxDelayNanoseconds: UInt64
    private var waiters: [Waiter] = []
    /// The highest offset a waiter waits for.
    private var awaitedOffset: UInt64
    /// The highest offset a started (or finished) sync covers.
    private var startedOffset: UInt64
    /// Whether a thread is between deciding to sync and recording what its flush covers;
    /// the others wait, so that two threads never sync the same records.
    private var isFlushing = false
    private let metrics = StorageMetrics()
    private var durableOffset: UInt64
    private var failure: StorageError?
    private var isStopping = false
    private var runningThreads: Int
    /// Syncs performed, for statistics.
    public private(set) var syncCount = 0

    /// Starts `syncsInFlightMax` committer threads (at least one). `flushForSync` runs under
    /// the caller's lock and returns the file to sync and the offset the sync will cover (or
    /// the offset already durable); `noteDurable` records a completed sync under that lock.
    public init(
        durableOffset: UInt64, maxDelayNanoseconds: UInt64 = 0, syncsInFlightMax: Int = 1,
        flushForSync: @escaping FlushForSync,
        noteDurable: @escaping NoteDurable
    ) {
        self.durableOffset = durableOffset
        awaitedOffset = durableOffset
        startedOffset = durableOffset
        self.maxDelayNanoseconds = maxDelayNanoseconds
        self.flushForSync = flushForSync
        self.noteDurable = noteDurable
        let threadCount = max(1, syncsInFlightMax)
        runningThreads = threadCount
        for number in 0..<threadCount {
            Thread.startNamed("logbook-sync-\(number)") { [self] in run() }
        }
    }

    /// Returns once every record below `offset` is durable; throws the sync error if the
    /// sync covering it failed (the log should then be treated as failed).
    public nonisolated(nonsending) func waitUntilDurable(_ offset: UInt64) async throws {
        try await withUnsafeThrowingContinuation {
            (continuation: UnsafeContinuation<Void, any Error>) in
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
                if offset > awaitedOffset {
                    awaitedOffset = offset
                    if offset > startedOffset { condition.signal() }
                }
            }
        }
    }

    /// Syncs what is pending, resumes the last waiters and stops the threads. Idempotent.
    public func stop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        while runningThreads > 0 { condition.wait() }
        condition.unlock()
    }

    /// Appenders waiting now, for tests.
    var waitingCount: Int { condition.withLock { waiters.count } }

    /// Whether a waiter waits for records no started sync covers (called with the lock held).
    private var hasUncoveredWaiter: Bool { awaitedOffset > startedOffset && failure == nil }

    private func run() {
        var handle: SyncHandle?
        condition.lock()
        while true {
            while (!hasUncoveredWaiter || isFlushing) && !isStopping { condition.wait() }
            if isStopping && (!hasUncoveredWaiter || isFlushing) {
                // Another thread's flush covers what remains, or nothing does.
                if !isFlushing { break }
                condition.wait()
                continue
            }
            isFlushing = true
            condition.unlock()
            if maxDelayNanoseconds > 0 {
                Thread.sleep(forTimeInterval: Double(maxDelayNanoseconds) / 1e9)
            }
            let outcome = syncOnce(&handle)
            condition.lock()
            var resumable: [Waiter] = []
            switch outcome {
            case .success(let (offset, synced)):
                if synced { syncCount += 1 }
                durableOffset = max(durableOffset, offset)
                resumable = takeWaiters { $0.offset <= durableOffset }
            case .failure(let error):
                if failure == nil { failure = error }
                isFlushing = false
                resumable = takeWaiters { _ in true }
            }
            let failed = failure
            condition.broadcast()
            condition.unlock()
            resume(resumable, failure: failed)
            condition.lock()
        }
        condition.unlock()
        // A failed close loses nothing: every sync through the handle has returned.
        try? handle?.file.close()
        condition.withLock {
            runningThreads -= 1
            condition.broadcast()
        }
    }

    /// Flushes, records what the flush covers (ending `isFlushing`), and syncs it unless a
    /// sync already started covers it. Returns the offset now durable and whether this call
    /// synced for it.
    private func syncOnce(_ handle: inout SyncHandle?) -> Result<(UInt64, Bool), StorageError> {
        do throws(StorageError) {
            let target: SyncTarget
            do throws(StorageError) {
                target = try flushForSync()
            } catch {
                endFlushing(covering: nil)
                throw error
            }
            switch target {
            case .durable(let offset):
                endFlushing(covering: offset)
                return .success((offset, false))
            case .sync(let file, let offset):
                let alreadyStarted = endFlushing(covering: offset)
                if alreadyStarted { return .success((currentDurableOffset(), false)) }
                let own = try SyncHandle.current(&handle, for: file)
                let started = ContinuousClock.now
                try own.sync()
                metrics.syncDuration.record(since: started)
                noteDurable(offset)
                return .success((offset, true))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Ends this thread's flush; records that a sync covering `offset` starts now. Returns
    /// whether an earlier sync already covers it.
    @discardableResult
    private func endFlushing(covering offset: UInt64?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        isFlushing = false
        condition.broadcast()
        guard let offset else { return false }
        if offset <= startedOffset { return true }
        startedOffset = offset
        return false
    }

    private func currentDurableOffset() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return durableOffset
    }

    /// Removes and returns the waiters `isCovered` picks (called with the lock held).
    private func takeWaiters(where isCovered: (Waiter) -> Bool) -> [Waiter] {
        // In place, and one allocation for what is taken: this runs under the lock every
        // appender takes to register, once per sync.
        var covered: [Waiter] = []
        covered.reserveCapacity(waiters.count)
        var kept = 0
        for index in waiters.indices {
            if isCovered(waiters[index]) {
                covered.append(waiters[index])
            } else {
                waiters.swapAt(kept, index)
                kept += 1
            }
        }
        waiters.removeLast(waiters.count - kept)
        if !covered.isEmpty { metrics.groupCommitAppenders.record(covered.count) }
        return covered
    }

    /// Resumes waiters outside the lock, so appenders registering meanwhile are not held up
    /// by the wake-ups; with `failure` (final once set) when a sync has failed.
    private func resume(_ covered: [Waiter], failure: StorageError?) {
        for waiter in covered {
            if let failure {
                waiter.continuation.resume(throwing: failure)
            } else {
                waiter.continuation.resume()
            }
        }
    }

    /// A thread's own handle on the file it syncs, and the file it was made from.
    private struct SyncHandle {
        let source: any StorageFile
        let file: any StorageFile

        /// The thread's handle on `source`, made (and the last one closed) when the file
        /// changed, as it does when the log starts a new segment.
        static func current(_ handle: inout SyncHandle?, for source: any StorageFile)
            throws(StorageError) -> any StorageFile
        {
            if let handle, handle.source === source { return handle.file }
            try? handle?.file.close()
            handle = nil
            let file = try source.syncHandle()
            handle = SyncHandle(source: source, file: file)
            return file
        }
    }
}
