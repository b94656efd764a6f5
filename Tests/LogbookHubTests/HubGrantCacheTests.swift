import Foundation
import Synchronization
import Testing

@testable import LogbookHub

// Grants held by a hub process: requests asking at once share one lookup; refusals are not
// held and end a held grant; a grant in use is refreshed once before it runs out, again
// after a failed refresh; an expired grant is not served.
struct HubGrantCacheTests {
    static let stream = HubStream(id: 3, name: "s")

    @Test func requestsAskingAtOnceShareOneLookup() async throws {
        let cache = HubGrantCache()
        let lookUps = Atomic<Int>(0)
        let lookUp: @Sendable () async throws -> HubGrantCache.Found? = {
            lookUps.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(100))
            return (Self.stream, .readWrite)
        }
        try await withThrowingTaskGroup(of: HubGrantCache.Found?.self) { group in
            for _ in 0..<100 {
                group.addTask { try await cache.lookUp(token: "lbh_x", stream: "s", by: lookUp) }
            }
            for try await found in group { #expect(found?.grant == .readWrite) }
        }
        #expect(lookUps.load(ordering: .relaxed) == 1)
        #expect(cache.held(token: "lbh_x", stream: "s")?.found.stream == Self.stream)
        #expect(cache.held(token: "lbh_x", stream: "other") == nil)
        #expect(cache.held(token: "lbh_y", stream: "s") == nil)
    }

    @Test func refusalsAreNotHeldAndEndAHeldGrant() async throws {
        let cache = HubGrantCache()
        let lookUps = Atomic<Int>(0)
        for _ in 0..<2 {
            let refused = try await cache.lookUp(token: "lbh_y", stream: "s") {
                lookUps.add(1, ordering: .relaxed)
                return nil
            }
            #expect(refused == nil)
            #expect(cache.held(token: "lbh_y", stream: "s") == nil)
        }
        #expect(lookUps.load(ordering: .relaxed) == 2)
        _ = try await cache.lookUp(token: "lbh_y", stream: "s") { (Self.stream, .read) }
        #expect(cache.held(token: "lbh_y", stream: "s")?.found.grant == .read)
        // The token was deleted: the next lookup (a refresh) finds nothing.
        _ = try await cache.lookUp(token: "lbh_y", stream: "s") { nil }
        #expect(cache.held(token: "lbh_y", stream: "s") == nil)
    }

    @Test func aGrantInUseIsRefreshedOnceBeforeItRunsOut() async throws {
        // Trusted 10 s, refreshed in its last 9.5: fresh for the first half second only.
        let cache = HubGrantCache(lifetime: .seconds(10), refreshAhead: .milliseconds(9_500))
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        #expect(cache.held(token: "lbh_x", stream: "s")?.refresh == false)
        try await Task.sleep(for: .milliseconds(600))
        #expect(cache.held(token: "lbh_x", stream: "s")?.refresh == true)
        // Later callers are answered from memory and leave the refresh to the first.
        #expect(cache.held(token: "lbh_x", stream: "s")?.refresh == false)
        #expect(cache.held(token: "lbh_x", stream: "s")?.found.grant == .readWrite)

        struct Unreachable: Error {}
        await #expect(throws: Unreachable.self) {
            try await cache.lookUp(token: "lbh_x", stream: "s") { throw Unreachable() }
        }
        // The failed refresh kept the grant and lets the next caller try again.
        #expect(cache.held(token: "lbh_x", stream: "s")?.refresh == true)
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        #expect(cache.held(token: "lbh_x", stream: "s")?.refresh == false)
    }

    @Test func anExpiredGrantIsNotServed() async throws {
        let cache = HubGrantCache(lifetime: .milliseconds(100), refreshAhead: .zero)
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(cache.held(token: "lbh_x", stream: "s") == nil)
    }
}
