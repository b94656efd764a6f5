import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import PostgresNIO
import Testing

@testable import LogbookHub
@testable import LogbookShipping

// A stream's history in epochs (migration 8): after its database is restored from an older
// copy and merges again, a reader or pusher that relied on versions the copy lacks is told,
// and a node repairs both directions; a restart that lost nothing refuses no one.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubEpochTests {
    /// What restoring the database from a copy taken at `version` leaves of `stream`: its
    /// rows and epochs past that version gone, its count and its nodes' positions back at
    /// it, and its epoch begun under another server than the one running now, as every
    /// copy's is. (A real restore also brings back cell values later merges overwrote; the
    /// tests here write each record once.)
    static func restore(_ stream: HubStream, toVersion version: UInt64, _ store: HubStore)
        async throws
    {
        let (id, kept) = (stream.id, Int64(version))
        let statements: [PostgresQuery] = [
            "DELETE FROM logbook_cells WHERE stream_id = \(id) AND hub_version > \(kept)",
            "DELETE FROM logbook_tombstones WHERE stream_id = \(id) AND hub_version > \(kept)",
            """
            DELETE FROM logbook_stream_epochs WHERE stream_id = \(id) AND first_version > \(kept)
            """,
            """
            UPDATE logbook_stream_nodes SET acknowledged_version = least(acknowledged_version,
                \(kept)), settled_version = least(settled_version, \(kept))
            WHERE stream_id = \(id)
            """,
            """
            UPDATE logbook_streams SET hub_version = \(kept),
                server_started = server_started - interval '1 day'
            WHERE stream_id = \(id)
            """,
        ]
        for statement in statements {
            try await store.client.query(statement, logger: HubTestDatabase.logger)
        }
    }

    /// As after the database restarted: the stream's epoch begun under another server.
    static func restart(_ stream: HubStream, _ store: HubStore) async throws {
        try await store.client.query(
            """
            UPDATE logbook_streams SET server_started = server_started - interval '1 day'
            WHERE stream_id = \(stream.id)
            """, logger: HubTestDatabase.logger)
    }

    /// Merges one record per version, `prefix0`…, each as its own push.
    static func merge(_ count: Int, _ prefix: String, into stream: HubStream, _ store: HubStore)
        async throws
    {
        let writer = CRDT<String, String, Value>(nodeId: 7)
        for index in 0..<count {
            _ = try await store.merge(
                writer.insertOrUpdate("\(prefix)\(index)", fields: [("v", .int(1))]), into: stream)
        }
    }

    /// Whether `body` throws the `HubError` that `matches` accepts.
    static func refuses(
        _ matches: (HubError) -> Bool, _ body: () async throws -> Void
    ) async -> Bool {
        do {
            try await body()
            return false
        } catch let error as HubError {
            return matches(error)
        } catch {
            return false
        }
    }

    @Test func aReaderOfVersionsARestoreLostIsRefusedOnceTheStreamMergesAgain() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            try await Self.merge(5, "a", into: stream, store)
            let read = try await store.batches(in: stream, from: 0, maxBytes: 1 << 20)
            #expect(HubOffsets.since(read.nextOffset) == 5)
            let first = try #require(read.epoch)
            let lostPosition = HubOffsets.after(version: 5)

            try await Self.restore(stream, toVersion: 3, store)
            // Before it merges again the position lies past the stream (as without epochs).
            #expect(
                await Self.refuses({ if case .diverged = $0 { true } else { false } }) {
                    _ = try await store.batches(
                        in: stream, from: lostPosition, epoch: first, maxBytes: 1 << 20)
                })
            try await Self.merge(4, "b", into: stream, store)
            // Versions 4 and 5 exist again, in another history: only the epoch tells.
            #expect(
                await Self.refuses({ if case .epochChanged = $0 { true } else { false } }) {
                    _ = try await store.batches(
                        in: stream, from: lostPosition, epoch: first, maxBytes: 1 << 20)
                })
            // What the copy kept is still held as it was read.
            let tail = try await store.batches(
                in: stream, from: HubOffsets.after(version: 3), epoch: first, maxBytes: 1 << 20)
            #expect(HubOffsets.since(tail.nextOffset) == 7)
            let second = try #require(tail.epoch)
            #expect(second != first)
            _ = try await store.batches(
                in: stream, from: lostPosition, epoch: second, maxBytes: 1 << 20)

            // An acknowledgement from the lost history raises no GC claim; one from this
            // history does.
            let lost = try await store.acknowledge(
                .init(node: 1, offset: lostPosition, epoch: first, settled: lostPosition),
                in: stream)
            #expect(!lost.positionHeld)
            let held = try await store.acknowledge(
                .init(node: 1, offset: lostPosition, epoch: second, settled: lostPosition),
                in: stream)
            #expect(held.positionHeld)
        }
    }

    @Test func aRestartThatLostNothingRefusesNoReader() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            try await Self.merge(3, "a", into: stream, store)
            let read = try await store.batches(in: stream, from: 0, maxBytes: 1 << 20)
            let first = try #require(read.epoch)
            try await Self.restart(stream, store)
            try await Self.merge(2, "b", into: stream, store)
            let next = try await store.batches(
                in: stream, from: read.nextOffset, epoch: first, maxBytes: 1 << 20)
            #expect(HubOffsets.since(next.nextOffset) == 5)
            #expect(next.epoch != nil && next.epoch != first)
            let reading = try await store.epochs(of: stream, at: 3, 4)
            #expect(reading.epochs.first == first && reading.epochs.second == next.epoch)
        }
    }

    @Test func aPushStatingPushesARestoreLostIsMergedThenRefused() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 3)
            func shipped(_ id: String) -> [UInt8] {
                var batches = ShippedBatchWriter()
                for (index, change) in writer.insertOrUpdate(id, fields: [("v", .int(1))])
                    .enumerated()
                {
                    batches.add(change, at: UInt64(index))
                }
                return batches.finish()
            }
            let one = try await store.merge(batches: shipped("p1"), into: stream)
            let merged = PeerPosition(version: one.hubVersion, epoch: one.epoch)
            #expect(merged.version == 1 && merged.epoch != nil)
            let two = try await store.merge(batches: shipped("p2"), into: stream, after: merged)
            let last = PeerPosition(version: two.hubVersion, epoch: two.epoch)

            try await Self.restore(stream, toVersion: 1, store)
            #expect(
                await Self.refuses({ if case .pushesLost = $0 { true } else { false } }) {
                    _ = try await store.merge(batches: shipped("p3"), into: stream, after: last)
                })
            // The push that found it out was merged; a pusher stating what the copy kept is
            // not refused.
            let page = try await store.changes(in: stream, since: 0, limit: 100)
            #expect(Set(page.changes.map(\.recordId)) == ["p1", "p3"])
            _ = try await store.merge(batches: shipped("p4"), into: stream, after: merged)
        }
    }

    @Test func aNodeRepairsBothDirectionsAfterTheHubsDatabaseIsRestored() async throws {
        try await HubReplicationTests.withStream { store, server, name, token in
            typealias Node = HubReplicationTests.Node
            let stream = try await store.stream(named: name, create: false)
            let a = try Node(id: 1, server: server, stream: name, token: token)
            let b = try Node(id: 2, server: server, stream: name, token: token)
            defer {
                a.close()
                b.close()
            }
            for index in 0..<5 {
                _ = try await a.logbook.insertOrUpdate("a\(index)", fields: [("v", .int(1))])
            }
            _ = try await a.link.sync()
            let copyTaken = try await store.epochs(of: stream, at: 0, 0).head
            for index in 5..<10 {
                _ = try await a.logbook.insertOrUpdate("a\(index)", fields: [("v", .int(1))])
            }
            _ = try await a.link.sync()
            try await Self.restore(stream, toVersion: copyTaken, store)
            // Node 2 merges past node 1's pull position: versions node 1 read in the lost
            // history now hold node 2's changes.
            for index in 0..<6 {
                _ = try await b.logbook.insertOrUpdate("b\(index)", fields: [("v", .int(1))])
                _ = try await b.link.sync()
            }
            // One round repairs both: its pull finds the position gone and takes the state,
            // and the push after it pushes the whole state.
            let repair = try await a.link.sync()
            #expect(repair.pulled.divergences == 1, "\(repair.pulled)")
            #expect(repair.pushed.restarts == 1, "\(repair.pushed)")
            _ = try await b.link.sync()
            // A node that joins now gets everything from the hub alone.
            let c = try Node(id: 3, server: server, stream: name, token: token)
            defer { c.close() }
            _ = try await c.link.sync()
            #expect(c.logbook.getRecord("a9") != nil, "node 1's lost pushes are back")
            try await HubReplicationTests.expectConverged([a, b, c], store: store, stream: name)
        }
    }

    @Test func aPusherLearnsFromItsNextPushThatARestoreLostItsEarlierOnes() async throws {
        try await HubReplicationTests.withStream { store, server, name, token in
            let stream = try await store.stream(named: name, create: false)
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
            defer { try? logbook.close() }
            let push = PushSession(
                logbook: logbook, ledger: try PeerLedger(for: logbook),
                transport: HTTPReplicationTransport(
                    peer: HubLink.streamURL(hub: server.url(), stream: name), token: token))
            _ = try await logbook.insertOrUpdate("kept", fields: [("v", .int(1))])
            _ = try await push.pushAll()
            _ = try await logbook.insertOrUpdate("lost", fields: [("v", .int(1))])
            _ = try await push.pushAll()
            try await Self.restore(stream, toVersion: 1, store)
            try await Self.merge(1, "other", into: stream, store)

            _ = try await logbook.insertOrUpdate("new", fields: [("v", .int(1))])
            let report = try await push.pushAll()
            #expect(report.restarts == 1, "\(report)")
            let page = try await store.changes(in: stream, since: 0, limit: 100)
            #expect(Set(page.changes.map(\.recordId)) == ["kept", "lost", "new", "other0"])
            // Pushing on states where the state's push was merged: nothing is refused.
            _ = try await logbook.insertOrUpdate("later", fields: [("v", .int(1))])
            #expect(try await push.pushAll().restarts == 0)
        }
    }
    @Test func aStreamedFollowEndsBeforeAFrameOfAnotherEpoch() async throws {
        try await HubReplicationTests.withStream { store, server, name, token in
            let stream = try await store.stream(named: name, create: false)
            try await Self.merge(2, "a", into: stream, store)
            let transport = HTTPReplicationTransport(
                peer: HubLink.streamURL(hub: server.url(), stream: name), token: token)
            defer { transport.closeFollowStream() }
            func follow(from offset: UInt64, epoch: UInt64?) async throws -> FetchedBatches {
                let answer = try await transport.fetchBatches(
                    from: offset, epoch: epoch, maxBytes: 1 << 20, wait: .seconds(5))
                guard case .batches(let batches) = answer else {
                    throw ReplicationError(message: "not answered with batches: \(answer)")
                }
                return batches
            }
            let first = try await follow(from: 0, epoch: nil)
            let firstEpoch = try #require(first.epoch)
            // The database restarts and merges: the open stream's next answer is in a new
            // epoch, which its header does not name.
            try await Self.restart(stream, store)
            try await Self.merge(1, "b", into: stream, store)
            let next = try await follow(from: first.nextOffset, epoch: firstEpoch)
            let newEpoch = try await store.epochs(of: stream, at: 3, 3).epochs.first
            #expect(next.epoch == newEpoch && next.epoch != firstEpoch)
            #expect(transport.followStreams.openedCount == 2, "the stream ended; a new one began")
        }
    }
}
