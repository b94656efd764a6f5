import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import Testing

@testable import LogbookHub

// Tombstone GC through a hub on PostgreSQL, over HTTP with the shipped `HubLink`: the hub's
// pass makes tombstones collectable once every registered node has a settled pull past them,
// the nodes collect and fence them, the hub deletes its rows after every node collected (and
// the grace), fences lift, and a record written again converges everywhere. A reader below
// the hub's collected horizon is told to take the state; a silent node holds GC back.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubGCTests {
    typealias Node = HubReplicationTests.Node

    /// Collect at once: no retention, no grace.
    static let immediate: HubCollectionSchedule = {
        var schedule = HubCollectionSchedule()
        schedule.retentionSeconds = 0
        schedule.graceSeconds = 0
        return schedule
    }()

    static func pass(_ store: HubStore, _ stream: String) async throws -> HubCollectionReport {
        let reports = try await store.collectTombstones(immediate, streams: [stream])
        return try #require(reports.first)
    }

    static func syncAll(_ nodes: [Node], collecting: Bool = false) async throws
        -> [HubLink.Report]
    {
        var reports: [HubLink.Report] = []
        for node in nodes {
            reports.append(
                try await node.link.sync(
                    collecting: collecting ? TombstoneCollectionOptions() : nil))
        }
        return reports
    }

    @Test func tombstonesAreCollectedEverywhereAndARecordCanBeWrittenAgain() async throws {
        try await HubReplicationTests.withStream { store, server, stream, token in
            let nodes = try (1...3).map {
                try Node(id: UInt64($0), server: server, stream: stream, token: token)
            }
            defer { for node in nodes { node.close() } }
            for index in 0..<5 {
                _ = try await nodes[0].logbook.insertOrUpdate(
                    "r\(index)", fields: [("v", .int(Int64(index)))])
            }
            _ = try await Self.syncAll(nodes)
            _ = try await nodes[1].logbook.deleteRecord("r1")
            _ = try await nodes[1].logbook.deleteRecord("r2")
            _ = try await Self.syncAll(nodes)
            _ = try await Self.syncAll(nodes)  // everyone's pull of the deletions settles
            #expect(nodes.allSatisfy { $0.logbook.tombstoneCount() == 2 })

            // The hub lists them; the nodes collect and fence them; the hub keeps its rows
            // until every node has reported collecting them.
            let first = try await Self.pass(store, stream)
            #expect(first.nodes == 3 && first.deleted == 0)
            let collected = try await Self.syncAll(nodes, collecting: true)
            #expect(collected.map { $0.collection?.collected } == [2, 2, 2])
            #expect(nodes.allSatisfy { $0.logbook.tombstoneCount() == 0 })
            #expect(nodes.allSatisfy { $0.logbook.isFenced("r1") && $0.logbook.isFenced("r2") })
            // A fenced record refuses local writes.
            #expect(
                try await nodes[2].logbook.insertOrUpdate("r1", fields: [("v", .int(9))]).isEmpty)
            let second = try await Self.pass(store, stream)  // the candidate starts its grace
            #expect(second.deleted == 0 && second.rule.pendingCollectedBelow > 0)
            let third = try await Self.pass(store, stream)
            #expect(third.deleted == 2, "\(third)")

            // The fences lift once the nodes hear it; a record written again converges.
            _ = try await Self.syncAll(nodes, collecting: true)
            #expect(nodes.allSatisfy { !$0.logbook.isFenced("r1") })
            #expect(
                try await !nodes[2].logbook.insertOrUpdate("r1", fields: [("v", .int(10))]).isEmpty)
            _ = try await Self.syncAll(nodes)
            _ = try await Self.syncAll(nodes)
            try await HubReplicationTests.expectConverged(nodes, store: store, stream: stream)
            #expect(nodes.allSatisfy { $0.logbook.getRecord("r1")?.field("v") == .int(10) })
            #expect(nodes.allSatisfy { $0.logbook.getRecord("r2") == nil })

            // A reader that has not seen the collected deletions must take the state.
            await #expect(throws: HubError.self) {
                _ = try await store.changes(
                    in: try await store.stream(named: stream, create: false), since: 1, limit: 10)
            }
        }
    }

    @Test func aSilentNodeHoldsGCBack() async throws {
        try await HubReplicationTests.withStream { store, server, stream, token in
            let nodes = try (1...2).map {
                try Node(id: UInt64($0), server: server, stream: stream, token: token)
            }
            defer { for node in nodes { node.close() } }
            _ = try await nodes[0].logbook.insertOrUpdate("r", fields: [("v", .int(1))])
            _ = try await Self.syncAll(nodes)  // both registered
            _ = try await nodes[0].logbook.deleteRecord("r")
            for _ in 0..<2 { _ = try await nodes[0].link.sync() }  // node 2 stays away
            let report = try await Self.pass(store, stream)
            #expect(report.slowest == 2, "\(report)")
            let collection = try await nodes[0].link.sync(collecting: TombstoneCollectionOptions())
            #expect(collection.collection?.collected == 0)
            #expect(nodes[0].logbook.tombstoneCount() == 1)
            // Once node 2 has synced twice (pulled, then settled), GC proceeds.
            _ = try await Self.syncAll(nodes)
            _ = try await Self.syncAll(nodes)
            _ = try await Self.pass(store, stream)
            let after = try await Self.syncAll(nodes, collecting: true)
            #expect(after.map { $0.collection?.collected } == [1, 1])
        }
    }

    /// A pass finding another pass on the stream skips it at once, or waits for it: to the
    /// end of the wait (skipped) or until the other one commits (collected). `hub gc` waits,
    /// so an operator's pass is not lost to a hub's scheduled one. The holder keeps the lock
    /// until told to let go, so a slow machine cannot change the outcome.
    @Test func aPassWaitsForARunningPassOrSkips() async throws {
        try await HubReplicationTests.withStream { store, _, name, _ in
            let stream = try await store.stream(named: name, create: true)
            let (taken, signalTaken) = AsyncStream<Void>.makeStream()
            let (release, signalRelease) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await store.client.transaction(logger: store.logger) { connection in
                    try await HubStore.takeCollectionLock(
                        of: stream, waitingSeconds: 0, on: connection, logger: store.logger)
                    signalTaken.yield()
                    for await _ in release { break }
                }
            }
            for await _ in taken { break }
            let pass = { @Sendable (wait: Double) in
                try await store.collectTombstones(
                    in: stream, retentionSeconds: 0, graceSeconds: 0, lockWaitSeconds: wait)
            }
            #expect(try await pass(0).skipped)
            let started = ContinuousClock.now
            #expect(try await pass(0.3).skipped)
            #expect(ContinuousClock.now - started >= .milliseconds(250))
            let waiting = Task { try await pass(30) }
            // Released once PostgreSQL shows the pass waiting for the lock (not after a
            // sleep): a pass that never waited would otherwise pass this test too.
            let key = HubStore.collectionLockBase &+ stream.id
            let deadline = ContinuousClock.now + .seconds(60)
            var waiters = 0
            while waiters == 0, ContinuousClock.now < deadline {
                let rows = try await store.client.query(
                    """
                    SELECT count(*)::bigint FROM pg_locks WHERE locktype = 'advisory'
                    AND NOT granted AND classid::bigint = \(key >> 32)
                    AND objid::bigint = \(key & 0xFFFF_FFFF)
                    """, logger: HubTestDatabase.logger)
                for try await count in rows.decode(Int64.self) { waiters = Int(count) }
                if waiters == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            try #require(waiters == 1, "the pass never waited for the lock")
            signalRelease.yield()
            let waited = try await waiting.value
            #expect(!waited.skipped, "\(waited)")
            try await holder.value
            #expect(!(try await pass(0).skipped))
        }
    }
}
