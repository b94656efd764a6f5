import LogbookCRDT
import PostgresNIO
import Testing

@testable import LogbookHub

// `logbook_merge_pushes` (migration 4): several pushes in one statement leave what merging
// them one after another leaves, and each push is told what of its own was accepted.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubGroupedMergeTests {
    typealias StringChange = Change<String, String, Value>

    @Test func pushesMergedTogetherHoldWhatMergingThemInOrderHoldsAndEachHearsItsOwn()
        async throws
    {
        try await HubTestDatabase.withClient { client in
            try await HubSchema.migrate(client, logger: HubTestDatabase.logger)
            let store = HubStore(client: client, logger: HubTestDatabase.logger)
            let one = CRDT<String, String, Value>(nodeId: 1)
            let two = CRDT<String, String, Value>(nodeId: 2)
            let earlier = one.insertOrUpdate("gone", fields: [("x", 1), ("y", 2)])
            // Push 0: two new cells of "r", one cell of "gone" (which push 1 deletes).
            var first = one.insertOrUpdate("r", fields: [("a", "one"), ("b", "one")])
            first += one.insertOrUpdate("gone", fields: [("z", 3)])
            // Push 1: "r.a" again at a greater version (it wins within the merge), the
            // deletion of "gone", and an echo of what the hub already holds.
            _ = two.mergeChanges(first)
            var second = two.insertOrUpdate("r", fields: [("a", "two")])
            second += [try #require(two.deleteRecord("gone"))]
            second += earlier
            // Push 2: only echoes.
            let third = earlier

            let grouped = try await store.stream(
                named: HubTestDatabase.freshStream(), create: true)
            _ = try await store.merge(earlier, into: grouped)
            let batch = HubBatch(pushes: [first, second, third])
            let reports = try await HubMergeStatement(stream: grouped, batch: batch)
                .run(on: client, logger: HubTestDatabase.logger)
            #expect(reports.count == 3)
            #expect(Set(reports.map(\.hubVersion)) == [2], "one merge, one version")
            #expect(reports.map(\.acceptedCells) == [1, 1, 0], "push 0 keeps r.b, push 1 r.a")
            #expect(reports.map(\.acceptedDeletions) == [0, 1, 0])
            #expect(reports.map(\.droppedCells) == [0, 2, 0], "gone.x and gone.y")

            let sequential = try await store.stream(
                named: HubTestDatabase.freshStream("sequential"), create: true)
            for push in [earlier, first, second, third] {
                _ = try await store.merge(push, into: sequential)
            }
            let held = try await Self.state(store, grouped)
            #expect(held == (try await Self.state(store, sequential)))
            #expect(
                held.contains("r/a=\(Value.string("two"))")
                    && held.contains("r/b=\(Value.string("one"))"), "\(held)")
            #expect(held.contains("gone/-") && !held.contains { $0.hasPrefix("gone/x") })
        }
    }

    @Test func aStreamDeletedByHandTakesItsRowsWithIt() async throws {
        try await HubTestDatabase.withClient { client in
            try await HubSchema.migrate(client, logger: HubTestDatabase.logger)
            let store = HubStore(client: client, logger: HubTestDatabase.logger)
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 5)
            var changes = writer.insertOrUpdate("kept", fields: [("c", 1)])
            changes += writer.insertOrUpdate("dropped", fields: [("c", 1)])
            changes += [try #require(writer.deleteRecord("dropped"))]
            _ = try await store.merge(changes, into: stream)
            try await client.query("DELETE FROM logbook_streams WHERE stream_id = \(stream.id)")
            let left = try await client.query(
                """
                SELECT (SELECT count(*) FROM logbook_cells WHERE stream_id = \(stream.id))
                    + (SELECT count(*) FROM logbook_tombstones WHERE stream_id = \(stream.id))
                """)
            for try await count in left.decode(Int64.self) { #expect(count == 0) }
            await #expect(throws: HubError.self) { try await store.merge(changes, into: stream) }
        }
    }

    /// Every row of the stream as "record/column=value" ("record/-" for a tombstone), sorted.
    static func state(_ store: HubStore, _ stream: HubStream) async throws -> [String] {
        try await HubMergeTests.allChanges(store, stream).map { change in
            guard let column = change.colName else { return "\(change.recordId)/-" }
            let value = change.value.map { "\($0)" } ?? "nil"
            return "\(change.recordId)/\(column)=\(value)"
        }.sorted()
    }
}
