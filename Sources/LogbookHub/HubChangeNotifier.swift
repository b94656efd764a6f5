import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes a hub process's long polls when a merge into their stream commits, in any hub
/// process: each merge sends `NOTIFY logbook_hub, 'STREAM_ID'` in its transaction
/// (PostgreSQL delivers it at commit, to every listener), and this service listens on one
/// pooled connection and counts notifications per stream. A long poll takes the count
/// before it reads, and waits for it to move.
///
/// A notification can be missed while the listening connection is down (the database
/// restarting): waiters then re-read every `pollWhileDeaf`, and even while listening every
/// `pollWhileListening`, so a lost notification costs latency, never a change.
public final class HubChangeNotifier: Service, @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    /// The channel merges notify on. Migration 3's `logbook_merge` names it in its SQL
    /// (a migration's text never changes), so it cannot change without a new migration.
    static let channel = "logbook_hub"
    /// How often a waiter re-reads while notifications arrive.
    let pollWhileListening: Duration
    /// How often a waiter re-reads while the listening connection is down.
    let pollWhileDeaf = Duration.milliseconds(50)

    private let client: PostgresClient
    private let logger: Logger
    private let lock = NSLock()
    private var generations: [Int64: UInt64] = [:]
    /// How often waits that ran out are ended: the precision of every wait's timeout.
    static let sweepInterval = Duration.milliseconds(10)

    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var deadline: ContinuousClock.Instant
    }

    private var waiters: [Int64: [UInt64: Waiter]] = [:]

    /// The long polls waiting now, over every stream (tests order events by it).
    var waitingCount: Int { lock.withLock { waiters.values.reduce(0) { $0 + $1.count } } }
    private var nextWaiter: UInt64 = 0
    /// Whether a sweeper runs (it stops once no wait is left).
    private var sweeping = false
    private var listening = false
    private var listenings: UInt64 = 0

    /// A notifier listening through `client`'s pool (it holds one connection while it runs),
    /// whose waiters re-read every `pollWhileListening` even when nothing was heard.
    public init(
        client: PostgresClient, logger: Logger, pollWhileListening: Duration = .seconds(1)
    ) {
        self.client = client
        self.logger = logger
        self.pollWhileListening = pollWhileListening
    }

    /// Listens until cancelled or graceful shutdown; reconnects after failures, waiting
    /// twice as long each time (100 ms up to 5 s).
    public func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            var backoff = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            self.startListening()
                            for try await notification in notifications {
                                if let stream = Int64(notification.payload) { self.bump(stream) }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    if isListening { backoff = .milliseconds(100) }  // it had worked: retry soon
                    let reason = (error as? PSQLError).map(HubDatabase.describe) ?? "\(error)"
                    logger.warning("hub notifications: \(reason); listening again in \(backoff)")
                }
                setListening(false)
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        setListening(false)
    }

    /// A count that moves with every merge into `stream` this process hears of, and with
    /// every start of listening (merges may have gone unheard before it): a read begun
    /// after the count reached G has seen every merge the count covers.
    func generation(of stream: Int64) -> UInt64 {
        lock.withLock { listenings &+ (generations[stream] ?? 0) }
    }

    /// Returns when a merge into `stream` is heard of after `generation`, or after at most
    /// `timeout` — sooner when not listening (`pollWhileDeaf`), since a notification may be
    /// lost then — or when the task is cancelled. A wait arms no timer of its own: one
    /// sweeper ends the waits that ran out (`sweepInterval`), so a thousand followers
    /// woken by each merge cost no thousand timers.
    func waitForMerge(into stream: Int64, after generation: UInt64, timeout: Duration) async {
        let bound = min(timeout, isListening ? pollWhileListening : pollWhileDeaf)
        let deadline = ContinuousClock.now + bound
        let id = lock.withLock {
            nextWaiter &+= 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                register(
                    Waiter(continuation: continuation, deadline: deadline), id: id,
                    stream: stream, after: generation)
            }
        } onCancel: {
            self.resume(id, stream: stream)
        }
    }

    /// Ends the waits that ran out, every `sweepInterval`, while any wait is registered.
    private func sweep() async {
        while true {
            try? await Task.sleep(for: Self.sweepInterval)
            let now = ContinuousClock.now
            let (expired, stops) = lock.withLock {
                var expired: [CheckedContinuation<Void, Never>] = []
                for (stream, streamWaiters) in waiters {
                    for (id, waiter) in streamWaiters where waiter.deadline <= now {
                        expired.append(waiter.continuation)
                        waiters[stream]?[id] = nil
                    }
                    if waiters[stream]?.isEmpty == true { waiters[stream] = nil }
                }
                // The next wait registered starts a new sweeper.
                if waiters.isEmpty { sweeping = false }
                return (expired, waiters.isEmpty)
            }
            for continuation in expired { continuation.resume() }
            if stops { return }
        }
    }

    var isListening: Bool { lock.withLock { listening } }

    private func setListening(_ value: Bool) {
        lock.withLock { listening = value }
    }

    /// Listening (again): every stream's count moves, and every waiter re-reads.
    private func startListening() {
        let woken = lock.withLock {
            listening = true
            listenings &+= 1
            defer { waiters.removeAll() }
            return waiters.values.flatMap(\.values).map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    private func register(_ waiter: Waiter, id: UInt64, stream: Int64, after generation: UInt64) {
        let (resumeNow, startsSweeper) = lock.withLock {
            // Already moved, or cancelled before registering (the handler found nothing).
            if listenings &+ (generations[stream] ?? 0) > generation || Task.isCancelled {
                return (true, false)
            }
            waiters[stream, default: [:]][id] = waiter
            defer { sweeping = true }
            return (false, !sweeping)
        }
        if resumeNow { waiter.continuation.resume() }
        if startsSweeper { Task { await self.sweep() } }
    }

    private func resume(_ id: UInt64, stream: Int64) {
        let waiter = lock.withLock {
            let waiter = waiters[stream]?.removeValue(forKey: id)
            if waiters[stream]?.isEmpty == true { waiters[stream] = nil }
            return waiter
        }
        waiter?.continuation.resume()
    }

    private func bump(_ stream: Int64) {
        let woken = lock.withLock {
            generations[stream, default: 0] &+= 1
            return waiters.removeValue(forKey: stream) ?? [:]
        }
        for waiter in woken.values { waiter.continuation.resume() }
    }
}
