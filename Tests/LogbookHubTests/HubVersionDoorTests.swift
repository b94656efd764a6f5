import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

@testable import LogbookHub

// A stream holds crdt-lite clients to the version door a node holds them to
// (docs/decisions/0014): a stream took a change with dbVersion 2^63 − 1 and served it, and
// every client that pulled it made 2^63 next, which nothing takes. Past 2^62 a client's
// versions may now be at most 2^32 ahead of the stream's highest; nodes' shipped pushes
// are not refused but raise that highest all the same.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubVersionDoorTests {
    typealias PlainChange = Change<String, String, Value>

    static let top = LogicalClock.followFloor + LogicalClock.followLead

    private func change(_ recordId: String, version: UInt64, nodeId: UInt64 = 9) -> PlainChange {
        PlainChange(
            recordId: recordId, colName: "n", value: .string("X"), colVersion: version,
            dbVersion: version, nodeId: nodeId, localDbVersion: 1)
    }

    @Test func aClientsVersionItsFollowersCouldNotWritePastIsRefused() async throws {
        try await HubServerTests.withServer { store, server in
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            for version in [ChangeLimits.versionMax, Self.top + 1] {
                let refused = try await HubServerTests.send(
                    server, "/streams/\(stream)/changes", method: .POST,
                    body: try HubServerTests.json([change("e/x", version: version)]),
                    token: token)
                #expect(refused.status == 400, "\(refused.body)")
                #expect(refused.body.contains("ChangeLimits.clientVersionMax"), "\(refused.body)")
            }
            let pulled = try await HubServerTests.send(
                server, "/streams/\(stream)/changes?since=0", token: token)
            #expect(pulled.body.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        }
    }

    @Test func aClientThatPulledTheHighestAdmittedVersionCanStillPush() async throws {
        try await HubServerTests.withServer { store, server in
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            let posted = try await HubServerTests.send(
                server, "/streams/\(stream)/changes", method: .POST,
                body: try HubServerTests.json([change("e/x", version: Self.top)]), token: token)
            #expect(posted.status == 200, "\(posted.body)")
            let pulled = try await HubServerTests.send(
                server, "/streams/\(stream)/changes?since=0", token: token)
            let client = CRDT<String, String, Value>(nodeId: 7)
            _ = client.mergeChanges(
                try ChangeJSON.decodeArray(Data(pulled.body.utf8), as: PlainChange.self))
            var written: [PlainChange] = []
            for round in 0..<200 {
                written += client.insertOrUpdate("e/x", fields: [("n", .int(Int64(round)))])
            }
            #expect(written.last?.colVersion == Self.top + 200)
            let pushed = try await HubServerTests.send(
                server, "/streams/\(stream)/changes", method: .POST,
                body: try HubServerTests.json(written), token: token)
            #expect(pushed.status == 200, "\(pushed.body)")
            let handle = try await store.stream(named: stream, create: false)
            #expect(try await store.versionHigh(of: handle) == Self.top + 201)
        }
    }

    @Test func aNodesPushIsNotRefusedButRaisesTheStreamsDoor() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(
                named: HubTestDatabase.freshStream(), create: true)
            let high = ChangeLimits.versionMax - 1
            let merged = try await store.merge(
                [change("e/x", version: high)], into: stream, from: .peer)
            #expect(merged.acceptedCells == 1)
            #expect(try await store.versionHigh(of: stream) == high)
            // The door opens with it, but never within 2^32 of the top.
            let door = ChangeLimits.clientVersionMax(clock: high)
            #expect(door == ChangeLimits.versionMax - LogicalClock.followLead)
            let echo = try await store.merge([change("e/y", version: door)], into: stream)
            #expect(echo.acceptedCells == 1)
            // Honest pushes never touch the row.
            let other = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            _ = try await store.merge([change("e/z", version: 12)], into: other)
            #expect(try await store.versionHigh(of: other) == 0)
        }
    }
}
