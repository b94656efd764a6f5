import Foundation
import Logbook

/// What one hub process remembers to spare the database: the answers to fetches of a
/// stream's batches, shared by every follower asking from the same offset after the same
/// merge (grants are held by `HubGrantCache`). A thousand followers
/// woken by one merge then cost one read, not a thousand.
///
/// A shared answer is never older than the merge a request waited for: each answer records
/// the stream's merge count (`HubChangeNotifier.generation`) taken before its read began,
/// and serves only requests that need no later count. A stale answer would still be
/// correct (the version rule holds for any snapshot), only late.
final class HubReadCache: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    /// Answers kept before the cache is emptied and starts again.
    static let capacity = 10_000

    struct PageKey: Hashable {
        var stream: Int64
        var offset: UInt64
        /// The epoch the readers state for the version before `offset` (they share the
        /// answer, and so its check, only when they state the same).
        var epoch: UInt64?
        var maxBytes: Int
    }

    private let lock = NSLock()
    private var pages: [PageKey: (generation: UInt64, read: Task<FetchedBatches, any Error>)] = [:]

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
}
