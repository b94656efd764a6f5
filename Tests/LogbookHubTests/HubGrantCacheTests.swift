import Foundation
import Synchronization
import Testing

@testable import LogbookHub

// Grants held by a hub process: requests asking at once share one lookup; refusals are not
// held and end a held grant; a grant in use is refreshed once before it runs out, again
// after a failed refresh; an expired grant is not served; tokens not held are looked up a
// few at a time and so many a second, the rest refused, while held grants never wait.
struct HubGrantCacheTests {
    static let stream = HubStream(id: 3, name: "s")

    @Test func requestsAskingAtOnceShareOneLookup() async throws {
        let cache = HubGrantCache(lifetime: .seconds(100))
        let lookUps = Atomic<Int>(0)
        let asking = Atomic<Int>(0)
        let requests = 100
        // The lookup answers only once every request has asked (and a little after, for the
        // last one to reach the cache): however slowly a loaded machine starts the tasks,
        // they all ask while it runs.
        let lookUp: @Sendable () async throws -> HubGrantCache.Found? = {
            lookUps.add(1, ordering: .relaxed)
            while asking.load(ordering: .acquiring) < requests {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(50))
            return (Self.stream, .readWrite)
        }
        let ask: @Sendable () async throws -> HubGrantCache.Found? = {
            asking.add(1, ordering: .releasing)
            return try await cache.lookUp(token: "lbh_x", stream: "s", by: lookUp)
        }
        try await withThrowingTaskGroup(of: HubGrantCache.Found?.self) { group in
            for _ in 0..<requests { group.addTask(operation: ask) }
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

    // Times are given, not slept: a loaded machine may run a test's steps seconds apart.
    // A lookup starts after `before` and before `after`, so its grant runs out between
    // `before + lifetime` and `after + lifetime`.
    @Test func aGrantInUseIsRefreshedOnceBeforeItRunsOut() async throws {
        let cache = HubGrantCache(lifetime: .seconds(100), refreshAhead: .seconds(10))
        let before = ContinuousClock.now
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        let after = ContinuousClock.now
        let fresh = before + .seconds(89)  // more than 10 s before it runs out
        let due = after + .seconds(90)  // at most 10 s before, and before it runs out
        #expect(cache.held(token: "lbh_x", stream: "s", at: fresh)?.refresh == false)
        #expect(cache.held(token: "lbh_x", stream: "s", at: due)?.refresh == true)
        // Later callers are answered from memory and leave the refresh to the first.
        #expect(cache.held(token: "lbh_x", stream: "s", at: due)?.refresh == false)
        #expect(cache.held(token: "lbh_x", stream: "s", at: due)?.found.grant == .readWrite)

        struct Unreachable: Error {}
        await #expect(throws: Unreachable.self) {
            try await cache.lookUp(token: "lbh_x", stream: "s") { throw Unreachable() }
        }
        // The failed refresh kept the grant and lets the next caller try again.
        #expect(cache.held(token: "lbh_x", stream: "s", at: due)?.refresh == true)
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        // Held anew from the refresh: served past the first grant's end.
        #expect(cache.held(token: "lbh_x", stream: "s", at: after + .seconds(100)) != nil)
    }

    @Test func anExpiredGrantIsNotServed() async throws {
        let cache = HubGrantCache(lifetime: .seconds(100), refreshAhead: .zero)
        _ = try await cache.lookUp(token: "lbh_x", stream: "s") { (Self.stream, .readWrite) }
        let after = ContinuousClock.now
        #expect(cache.held(token: "lbh_x", stream: "s", at: after + .seconds(100)) == nil)
        #expect(cache.held(token: "lbh_x", stream: "s", at: after)?.refresh == false)
    }

    @Test func newTokensAreCheckedAFewAtATimeWhileHeldGrantsAreNeverRefused() async throws {
        let cache = HubGrantCache(
            lifetime: .seconds(100), newLookupsMax: 2, newLookupsPerSecond: 1_000_000)
        _ = try await cache.lookUp(token: "lbh_held", stream: "s") { (Self.stream, .readWrite) }
        // Two lookups of tokens not held run until released.
        let released = Atomic<Bool>(false)
        let started = Atomic<Int>(0)
        let slow: @Sendable () async throws -> HubGrantCache.Found? = {
            started.add(1, ordering: .relaxed)
            while !released.load(ordering: .acquiring) {
                try await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }
        async let first = cache.lookUp(token: "lbh_a", stream: "s", by: slow)
        async let second = cache.lookUp(token: "lbh_b", stream: "s", by: slow)
        while started.load(ordering: .relaxed) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        // A third new token is refused without a lookup; one already running is shared.
        await #expect(throws: HubGrantCache.Busy.self) {
            try await cache.lookUp(token: "lbh_c", stream: "s") {
                Issue.record("a refused token was looked up")
                return nil
            }
        }
        async let shared = cache.lookUp(token: "lbh_a", stream: "s", by: slow)
        // A held grant's lookup (its refresh) still runs.
        let refreshed = try await cache.lookUp(token: "lbh_held", stream: "s") {
            (Self.stream, .read)
        }
        #expect(refreshed?.grant == .read)
        released.store(true, ordering: .releasing)
        let answers = try await [first, second, shared]
        #expect(answers.allSatisfy { $0 == nil })
        #expect(started.load(ordering: .relaxed) == 2)
        // The slots are free again.
        let later = try await cache.lookUp(token: "lbh_c", stream: "s") { (Self.stream, .read) }
        #expect(later?.grant == .read)
    }

    @Test func onlyTokensOfTheIssuedFormAreLookedUp() {
        for _ in 0..<200 { #expect(HubStore.isWellFormed(token: HubStore.newSecret())) }
        let issued = HubStore.newSecret()
        let body = String(issued.dropFirst(4))
        for malformed in [
            "", "lbh_", "xxx_" + body, "lbh_" + body.dropLast(), issued + "A", issued + "=",
            "lbh_" + body.dropLast() + "+", "lbh_" + body.dropLast() + "é", "LBH_" + body,
        ] {
            #expect(!HubStore.isWellFormed(token: malformed), "\(malformed)")
        }
    }

    @Test func newLookupsAreAllowedABurstThenSoManyASecond() {
        let start = ContinuousClock.now
        var allowance = LookupAllowance(perSecond: 10, burst: 3, now: start)
        #expect((0..<4).map { _ in allowance.take(at: start) } == [true, true, true, false])
        #expect(allowance.take(at: start + .milliseconds(50)) == false)
        #expect(allowance.take(at: start + .milliseconds(110)) == true)
        #expect(allowance.take(at: start + .milliseconds(120)) == false)
        // A long quiet spell refills the burst, no more.
        let later = start + .seconds(60)
        #expect((0..<4).map { _ in allowance.take(at: later) } == [true, true, true, false])
        // A clock read out of order takes nothing back.
        #expect(allowance.take(at: start) == false)
    }

    @Test func aCacheRefusesNewTokensPastItsAllowanceASecond() async throws {
        let cache = HubGrantCache(newLookupsMax: 2, newLookupsPerSecond: 0.001)
        for token in ["lbh_a", "lbh_b"] {
            #expect(try await cache.lookUp(token: token, stream: "s") { nil } == nil)
        }
        await #expect(throws: HubGrantCache.Busy.self) {
            try await cache.lookUp(token: "lbh_c", stream: "s") { nil }
        }
    }
}
