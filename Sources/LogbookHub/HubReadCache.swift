import Foundation
import Logbook

/// What one hub process remembers to spare the database: the grants tokens were found to
/// have (for `grantLifetime`), and the answers to fetches of a stream's batches, shared by
/// every follower asking from the same offset after the same merge. A thousand followers
/// woken by one merge then cost one read, not a thousand.
///
/// A shared answer is never older than the merge a request waited for: each answer records
/// the stream's merge count (`HubChangeNotifier.generation`) taken before its read began,
/// and serves only requests that need no later count. A stale answer would still be
/// correct (the version rule holds for any snapshot), only late.
final class HubReadCache: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    /// How long a grant found in the database is trusted: a token's streams are fixed at
    /// creation, so this bounds only how late a deleted token stops working.
    static let grantLifetime = Duration.seconds(5)
    /// Entries kept of each kind before the cache is emptied and starts again.
    static let capacity = 10_000

    struct PageKey: Hashable {
        var stream: Int64
        var offset: UInt64
        var maxBytes: Int
    }

    private struct GrantKey: Hashable {
        var token: String
        var stream: String
    }

    private let lock = NSLock()
    private var pages: [PageKey: (generation: UInt64, read: Task<FetchedBatches, any Error>)] = [:]
    private var grants:
        [GrantKey: (stream: HubStream, grant: HubGrant, until: ContinuousClock.Instant)] =
            [:]

    /// The answer for `key` read at merge count `generation` or later: a shared one when
    /// there is one, else `read`'s, shared with the requests that come while it runs.
    func batches(
        _ key: PageKey, generation: UInt64,
        read: @escaping @Sendable () async throws -> FetchedBatches
    ) async throws -> FetchedBatches {
        let task = lock.withLock {
            if let entry = pages[key], entry.generation >= generation { return entry.read }
            if pages.count >= Self.capacity { pages.removeAll() }
            let task = Task { try await read() }
            pages[key] = (generation, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed read is not shared with later requests.
            lock.withLock { if pages[key]?.read == task { pages[key] = nil } }
            throw error
        }
    }

    /// The grant `token` has on `stream` when memory holds a fresh one.
    func freshGrant(token: String, stream: String) -> (stream: HubStream, grant: HubGrant)? {
        let key = GrantKey(token: token, stream: stream)
        guard let held = lock.withLock({ grants[key] }), held.until > ContinuousClock.now else {
            return nil
        }
        return (held.stream, held.grant)
    }

    /// The grant `token` has on `stream`, from memory while it is fresh, else from `lookUp`
    /// (which remembers a grant it finds; a refusal is not remembered, so a token created a
    /// moment ago works at once).
    func grant(
        token: String, stream: String,
        lookUp: () async throws -> (stream: HubStream, grant: HubGrant)?
    ) async throws -> (stream: HubStream, grant: HubGrant)? {
        if let held = freshGrant(token: token, stream: stream) { return held }
        let key = GrantKey(token: token, stream: stream)
        let now = ContinuousClock.now
        guard let found = try await lookUp() else { return nil }
        lock.withLock {
            if grants.count >= Self.capacity { grants.removeAll() }
            grants[key] = (found.stream, found.grant, now + Self.grantLifetime)
        }
        return found
    }
}
