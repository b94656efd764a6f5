import Logbook
import LogbookCRDT
import Testing

@testable import LogbookHub

// What the hub stores from a node's acknowledgement, read back from the table its GC reads:
// a settled pull is never taken past the position acknowledged, and a position past the
// stream's head (a node from a history this database lost) raises neither GC claim.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubAcknowledgementTests {
    struct Standing: Equatable {
        var settled: UInt64
        var listed: UInt64
    }

    static func standing(of node: UInt64, in stream: HubStream, _ store: HubStore) async throws
        -> Standing?
    {
        let nodes = try await store.client.withConnection { connection in
            try await HubStore.nodes(of: stream, on: connection, logger: HubTestDatabase.logger)
        }
        return nodes.first { $0.node == node }.map {
            Standing(settled: $0.standing.settledVersion, listed: $0.standing.collectedBelow)
        }
    }

    /// A stream whose head is hub version 3, each version holding one change.
    static func streamAtVersionThree(_ store: HubStore) async throws -> HubStream {
        let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
        let writer = CRDT<String, String, Value>(nodeId: 7)
        for index in 0..<3 {
            _ = try await store.merge(
                writer.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(index)))]),
                into: stream)
        }
        return stream
    }

    @Test func aSettledPullIsNeverStoredPastThePositionAcknowledged() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await Self.streamAtVersionThree(store)
            let receipt = try await store.acknowledge(
                .init(
                    node: 1, offset: HubOffsets.after(version: 1),
                    settled: HubOffsets.after(version: 3)),
                in: stream)
            #expect(receipt == .init(acknowledgedVersion: 1, streamVersion: 3, positionHeld: true))
            #expect(try await Self.standing(of: 1, in: stream, store)?.settled == 1)
            // Once the node acknowledges further, its claim counts in full.
            try await store.acknowledge(
                .init(
                    node: 1, offset: HubOffsets.after(version: 3),
                    settled: HubOffsets.after(version: 3)),
                in: stream)
            #expect(try await Self.standing(of: 1, in: stream, store)?.settled == 3)
        }
    }

    @Test func aPositionPastTheStreamRegistersTheNodeButRaisesNoClaim() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await Self.streamAtVersionThree(store)
            // Node 1 settles everything, so a GC pass lists tombstones up to the head.
            try await store.acknowledge(
                .init(
                    node: 1, offset: HubOffsets.after(version: 3),
                    settled: HubOffsets.after(version: 3)),
                in: stream)
            _ = try await store.collectTombstones(
                in: stream, retentionSeconds: 0, graceSeconds: 0)
            let listedUpTo = try await store.collectable(in: stream, from: 0).collectableBelow
            #expect(listedUpTo > 0)

            // Node 2 pulled versions this stream no longer holds (its database was restored
            // behind them); what it settled and collected belongs to that lost history.
            let lost = try await store.acknowledge(
                .init(
                    node: 2, offset: HubOffsets.after(version: 10),
                    settled: HubOffsets.after(version: 3), listedCollectedBelow: listedUpTo),
                in: stream)
            #expect(!lost.positionHeld)
            #expect(
                try await Self.standing(of: 2, in: stream, store) == Standing(settled: 0, listed: 0)
            )
            let pass = try await store.collectTombstones(
                in: stream, retentionSeconds: 0, graceSeconds: 0)
            #expect(pass.nodes == 2 && pass.slowest == 2, "\(pass)")

            // After taking the state it acknowledges a position the stream holds.
            let held = try await store.acknowledge(
                .init(
                    node: 2, offset: HubOffsets.after(version: 3),
                    settled: HubOffsets.after(version: 3), listedCollectedBelow: listedUpTo),
                in: stream)
            #expect(held.positionHeld)
            #expect(
                try await Self.standing(of: 2, in: stream, store)
                    == Standing(settled: 3, listed: listedUpTo))
        }
    }
}
