import LogbookCRDT
import LogbookHub
import Testing

// crdt-lite's merge rules, applied by one SQL statement: each case pushes changes to a fresh
// stream and reads the stream back.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubMergeTests {
    typealias StringChange = Change<String, String, Value>

    static func allChanges(_ store: HubStore, _ stream: HubStream) async throws -> [StringChange] {
        var changes: [StringChange] = []
        var since: UInt64 = 0
        while true {
            let page = try await store.changes(in: stream, since: since, limit: 1000)
            changes += page.changes
            since = page.nextSince
            if page.isComplete { return changes }
        }
    }

    @Test func aDeletionDropsItsRecordsColumnsAndLaterWritesToIt() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 7)
            var changes = writer.insertOrUpdate("lamp", fields: [("name", "Lamp"), ("level", 3)])
            changes += writer.insertOrUpdate("fan", fields: [("name", "Fan")])
            let first = try await store.merge(changes, into: stream)
            #expect(first.acceptedCells == 3)
            let deletion = try #require(writer.deleteRecord("lamp"))
            let second = try await store.merge([deletion], into: stream)
            #expect(second.acceptedDeletions == 1 && second.droppedCells == 2)
            // A stale write to the deleted record, from a node that never saw the deletion.
            let stale = CRDT<String, String, Value>(nodeId: 9)
            let late = stale.insertOrUpdate("lamp", fields: [("name", "Back again")])
            let third = try await store.merge(late, into: stream)
            #expect(third.acceptedCells == 0)

            let held = try await Self.allChanges(store, stream)
            #expect(held.filter { $0.recordId == "lamp" }.map(\.colName) == [nil])
            #expect(held.filter { $0.recordId == "fan" }.count == 1)
        }
    }

    @Test func anEchoChangesNothingAndOnlyAGreaterVersionWins() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let one = CRDT<String, String, Value>(nodeId: 1)
            let two = CRDT<String, String, Value>(nodeId: 2)
            let written = one.insertOrUpdate("r", fields: [("c", "from one")])
            #expect(try await store.merge(written, into: stream).acceptedCells == 1)
            #expect(try await store.merge(written, into: stream).acceptedCells == 0)
            // Same colVersion and dbVersion, higher node id: node 2 wins, as in crdt-lite.
            let rival = two.insertOrUpdate("r", fields: [("c", "from two")])
            #expect(try await store.merge(rival, into: stream).acceptedCells == 1)
            #expect(try await store.merge(written, into: stream).acceptedCells == 0)
            let held = try await Self.allChanges(store, stream)
            #expect(held.map(\.value) == [.string("from two")])
            #expect(held.map(\.nodeId) == [2])
        }
    }

    @Test func aFieldDeletionIsKeptAsAVersionedEmptyColumn() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 3)
            var changes = writer.insertOrUpdate("r", fields: [("a", 1), ("b", .null)])
            changes += [try #require(writer.deleteField("r", fieldName: "a"))]
            _ = try await store.merge(changes, into: stream)
            let held = try await Self.allChanges(store, stream).sorted {
                $0.colName ?? "" < $1.colName ?? ""
            }
            #expect(held.map(\.colName) == ["a", "b"])
            #expect(held[0].value == nil && held[0].colVersion == 2)
            #expect(held[1].value == .null, "a JSON null is a value, not a deletion")
        }
    }

    @Test func aChangeOverTheEnginesBoundsRefusesThePushWhole() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 4)
            var changes = writer.insertOrUpdate("good", fields: [("c", 1)])
            var hostile = changes[0]
            hostile.recordId = String(repeating: "x", count: 2000)
            changes.append(hostile)
            await #expect(throws: HubError.self) { try await store.merge(changes, into: stream) }
            #expect(try await Self.allChanges(store, stream).isEmpty, "part of the push was merged")
            var overVersion = changes[0]
            overVersion.dbVersion = UInt64.max
            await #expect(throws: HubError.self) {
                try await store.merge([overVersion], into: stream)
            }
            await #expect(throws: HubError.self) {
                try await store.stream(named: "../etc/passwd", create: true)
            }
        }
    }

    @Test func nodeIdsAboveTwoToTheSixtyThreeKeepTheirOrder() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let low = CRDT<String, String, Value>(nodeId: 5)
            let high = CRDT<String, String, Value>(nodeId: UInt64.max - 1)
            _ = try await store.merge(
                high.insertOrUpdate("r", fields: [("c", "high")]), into: stream)
            _ = try await store.merge(low.insertOrUpdate("r", fields: [("c", "low")]), into: stream)
            let held = try await Self.allChanges(store, stream)
            #expect(held.map(\.nodeId) == [UInt64.max - 1])
            #expect(held.map(\.value) == [.string("high")])
        }
    }

    @Test func migrationsApplyOnceWhenManyProcessesMigrateAtOnce() async throws {
        try await HubTestDatabase.withFreshDatabase { url in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await HubTestDatabase.withClient(url: url) { client in
                            try await HubSchema.migrate(client, logger: HubTestDatabase.logger)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            // Each applied once, by whichever process took it; the processes end in any order.
            #expect(applied.sorted() == Array(1...HubSchema.latestVersion))
            try await HubTestDatabase.withClient(url: url) { client in
                #expect(try await HubSchema.migrate(client, logger: HubTestDatabase.logger).isEmpty)
                let store = HubStore(client: client, logger: HubTestDatabase.logger)
                try await store.checkSchema()
            }
        }
    }

    @Test func aStoreRefusesADatabaseWithoutTheSchema() async throws {
        try await HubTestDatabase.withFreshDatabase { url in
            try await HubTestDatabase.withClient(url: url) { client in
                let store = HubStore(client: client, logger: HubTestDatabase.logger)
                await #expect(
                    throws: HubError.schemaMissing(database: 0, build: HubSchema.latestVersion)
                ) {
                    try await store.checkSchema()
                }
            }
        }
    }

    @Test func aSinceAboveEveryVersionReadsNothing() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writer = CRDT<String, String, Value>(nodeId: 6)
            _ = try await store.merge(writer.insertOrUpdate("r", fields: [("c", 1)]), into: stream)
            for since in [UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max] {
                let page = try await store.changes(in: stream, since: since, limit: 10)
                #expect(page.changes.isEmpty, "since \(since) read \(page.changes.count) changes")
                #expect(page.isComplete)
            }
        }
    }
}
