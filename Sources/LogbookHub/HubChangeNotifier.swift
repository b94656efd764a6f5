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
    private var waiters: [Int64: [UUID: CheckedContinuation<Void, Never>]] = [:]
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
    /// lost then.
    func waitForMerge(into stream: Int64, after generation: UInt64, timeout: Duration) async {
        let bound = min(timeout, isListening ? pollWhileListening : pollWhileDeaf)
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        self.register(continuation, id: id, stream: stream, after: generation)
                    }
                } onCancel: {
                    self.resume(id, stream: stream)
                }
            }
            group.addTask { try? await Task.sleep(for: bound) }
            await group.next()
            group.cancelAll()
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
            return waiters.values.flatMap(\.values)
        }
        for continuation in woken { continuation.resume() }
    }

    private func register(
        _ continuation: CheckedContinuation<Void, Never>, id: UUID, stream: Int64,
        after generation: UInt64
    ) {
        let resumeNow = lock.withLock {
            // Already moved, or cancelled before registering (the handler found nothing).
            if listenings &+ (generations[stream] ?? 0) > generation || Task.isCancelled {
                return true
            }
            waiters[stream, default: [:]][id] = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    private func resume(_ id: UUID, stream: Int64) {
        let continuation = lock.withLock { waiters[stream]?.removeValue(forKey: id) }
        continuation?.resume()
    }

    private func bump(_ stream: Int64) {
        let woken = lock.withLock {
            generations[stream, default: 0] &+= 1
            return waiters.removeValue(forKey: stream) ?? [:]
        }
        for continuation in woken.values { continuation.resume() }
    }
}
