import Foundation
import Logbook
import Synchronization
import Testing

@testable import LogbookHub

// A hub process's cache: followers asking from one offset after one merge share one read;
// a request that waited for a later merge gets a read of its own; failures are not
// remembered.
struct HubReadCacheTests {
    static func answer(_ offset: UInt64) -> FetchedBatches {
        FetchedBatches(bytes: [], batchCount: 0, durableOffset: offset, nextOffset: offset)
    }

    @Test func followersAtOneOffsetShareOneReadUntilALaterMerge() async throws {
        let cache = HubReadCache()
        let reads = Atomic<Int>(0)
        let key = HubReadCache.PageKey(stream: 1, offset: 42, maxBytes: 100)
        let read: @Sendable () async throws -> FetchedBatches = {
            reads.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(50))
            return Self.answer(42)
        }
        try await withThrowingTaskGroup(of: FetchedBatches.self) { group in
            for _ in 0..<100 {
                group.addTask { try await cache.batches(key, generation: 7, read: read) }
            }
            for try await answer in group { #expect(answer.nextOffset == 42) }
        }
        #expect(reads.load(ordering: .relaxed) == 1)
        _ = try await cache.batches(key, generation: 6, read: read)  // older need: shared
        #expect(reads.load(ordering: .relaxed) == 1)
        _ = try await cache.batches(key, generation: 8, read: read)  // a later merge: read
        #expect(reads.load(ordering: .relaxed) == 2)
        let elsewhere = HubReadCache.PageKey(stream: 1, offset: 43, maxBytes: 100)
        _ = try await cache.batches(elsewhere, generation: 8, read: read)
        #expect(reads.load(ordering: .relaxed) == 3)
    }

    @Test func aFailedReadIsNotShared() async throws {
        struct Refused: Error {}
        let cache = HubReadCache()
        let key = HubReadCache.PageKey(stream: 2, offset: 0, maxBytes: 100)
        await #expect(throws: Refused.self) {
            try await cache.batches(key, generation: 1) { throw Refused() }
        }
        let answer = try await cache.batches(key, generation: 1) { Self.answer(5) }
        #expect(answer.nextOffset == 5)
    }
}
