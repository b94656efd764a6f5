import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

/// A Logbook in a temporary directory with the graph and search views registered.
struct HomeLogbook {
    let directory = TemporaryDirectory()
    let graph = GraphIndex()
    let search = SearchIndex()
    let logbook: Logbook

    init() throws {
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = [graph, search]
        logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
    }

    /// Imports a Goodies document given as JSON text.
    func load(_ json: String) async throws {
        try await logbook.importGoodies(GoodiesDocument(parsing: Array(json.utf8)))
    }

    func close() {
        try? logbook.close()
        directory.remove()
    }

    /// The third-party data shipped in the repository (Fixtures/third-party/README.md).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/third-party")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }
}

/// Builds Goodies JSON: entities as (id, type, name), relationships as (id, from, to, type).
func goodiesJSON(
    entities: [(String, String, String)], relationships: [(String, String, String, String)]
) -> String {
    let entityText = entities.map {
        #"{"id": "\#($0.0)", "entity_type": "\#($0.1)", "name": "\#($0.2)", "content": {}}"#
    }
    let relationshipText = relationships.map {
        #"{"id": "\#($0.0)", "from_entity_id": "\#($0.1)", "to_entity_id": "\#($0.2)", "#
            + #""relationship_type": "\#($0.3)", "properties": {}}"#
    }
    return #"{"entities": [\#(entityText.joined(separator: ", "))], "#
        + #""relationships": [\#(relationshipText.joined(separator: ", "))]}"#
}

// The Goodies' graph semantics on a hand-made home whose answers are worked out by hand in
// the comments, then updates through the log, then the real fixture homes.
@Suite struct GraphIndexTests {
    static let home = goodiesJSON(
        entities: [
            ("h", "home", "Home"), ("r1", "room", "Kitchen"), ("r2", "room", "Hall"),
            ("d1", "device", "Light"), ("d2", "device", "Switch"), ("d3", "device", "Hub"),
            ("n", "note", "Note"), ("z", "zone", "Upstairs"),
        ],
        relationships: [
            ("e1", "r1", "h", "located_in"), ("e2", "r2", "h", "located_in"),
            ("e3", "d1", "r1", "located_in"), ("e4", "d2", "r1", "located_in"),
            ("e5", "d1", "d2", "controls"), ("e6", "d2", "d3", "controls"),
            ("e7", "d3", "d1", "controls"), ("e8", "d3", "r2", "located_in"),
            ("e9", "n", "ghost", "documented_by"), ("e10", "z", "z", "connects_to"),
            ("e11", "r1", "r2", "connects_to"), ("e12", "ghost", "d3", "monitors"),
        ])

    @Test func pathsAreShortestOverOutgoingEdgesInInsertionOrder() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        #expect(graph.findPath(from: "d1", to: "h") == ["d1", "r1", "h"])
        #expect(graph.findPath(from: "d1", to: "h", maxDepth: 1) == nil)
        #expect(graph.findPath(from: "h", to: "d1") == nil)  // outgoing edges only
        #expect(graph.findPath(from: "d1", to: "d1") == ["d1"])
        #expect(graph.findPath(from: "nobody", to: "nobody") == nil)
        #expect(graph.findPath(from: "n", to: "ghost") == ["n", "ghost"])  // recordless target
        #expect(graph.findPath(from: "n", to: "d3") == ["n", "d3"])  // recordless member skipped
    }

    @Test func breadthAndDepthFirstVisitEachEntityOnce() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        let bfs = graph.bfs(from: "d1")
        #expect(bfs.map(\.id) == ["d1", "r1", "d2", "h", "r2", "d3"])
        #expect(bfs.map(\.depth) == [0, 1, 1, 2, 2, 2])
        #expect(graph.bfs(from: "d1", maxDepth: 0).map(\.id) == ["d1"])
        #expect(graph.bfs(from: "d1", types: ["controls"]).map(\.id) == ["d1", "d2", "d3"])
        #expect(graph.bfs(from: "nobody").isEmpty)
        #expect(graph.dfs(from: "d1") == ["d1", "r1", "h", "r2", "d2", "d3"])
        #expect(graph.dfs(from: "d1", maxDepth: 1) == ["d1", "r1", "d2"])
        #expect(graph.dfs(from: "nobody").isEmpty)
    }

    @Test func allPathsNeverRevisitANodeOnThePath() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        #expect(
            graph.findAllPaths(from: "d1", to: "h") == [
                ["d1", "r1", "h"], ["d1", "r1", "r2", "h"], ["d1", "d2", "r1", "h"],
                ["d1", "d2", "r1", "r2", "h"], ["d1", "d2", "d3", "r2", "h"],
            ])
        #expect(graph.findAllPaths(from: "d1", to: "h", maxLength: 3) == [["d1", "r1", "h"]])
        #expect(graph.findAllPaths(from: "d1", to: "d1") == [["d1"]])
        #expect(graph.findAllPaths(from: "d1", to: "h", types: ["controls"]).isEmpty)
    }

    @Test func subgraphsFollowBothDirectionsAndListEachRelationshipOnce() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        let kitchen = graph.subgraph(around: "r1")
        #expect(kitchen.entities == ["r1", "h", "d1", "d2", "r2"])
        #expect(kitchen.relationships == ["e1", "e3", "e4", "e11"])
        let loop = graph.subgraph(around: "z", depth: 3)
        #expect(loop.entities == ["z"])
        #expect(loop.relationships == ["e10"])
        #expect(graph.subgraph(around: "r1", depth: 0).entities == ["r1"])
        #expect(graph.subgraph(around: "r1", depth: 0).relationships.isEmpty)
        #expect(graph.subgraph(around: "nobody").entities.isEmpty)
        let twoHops = graph.subgraph(around: "r1", depth: 2, types: ["located_in"])
        // Level 1 expands h, d1, d2 (r2 is reached at depth 2 and not expanded).
        #expect(twoHops.entities == ["r1", "h", "d1", "d2", "r2"])
        #expect(twoHops.relationships == ["e1", "e3", "e4", "e2"])
    }

    @Test func ancestorsFollowParentEdgesOutwardAndOtherTypesInward() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        #expect(graph.ancestors(of: "d1", type: "located_in") == ["r1", "h"])
        #expect(graph.descendants(of: "h", type: "located_in") == ["r1", "r2", "d1", "d2", "d3"])
        #expect(graph.descendants(of: "h", type: "located_in", maxDepth: 1) == ["r1", "r2"])
        #expect(graph.descendants(of: "h", type: "located_in", maxDepth: 0).isEmpty)
        // controls is not a child → parent type: ancestors are the controllers.
        #expect(graph.ancestors(of: "d2", type: "controls") == ["d1", "d3"])
        #expect(graph.descendants(of: "d1", type: "controls") == ["d2", "d3"])
    }

    @Test func cyclesCentralityStatisticsAndRooms() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        #expect(graph.detectCycles() == [["d1", "d2", "d3", "d1"], ["z", "z"]])
        #expect(graph.detectCycles(from: "z") == [["z", "z"]])
        #expect(graph.detectCycles(types: ["located_in"]).isEmpty)
        #expect(graph.degreeCentrality(of: "r1") == 4)
        #expect(graph.degreeCentrality(of: "nobody") == 0)
        let statistics = graph.statistics()
        #expect(statistics.totalEntities == 8)
        #expect(statistics.totalRelationships == 12)
        #expect(statistics.entityTypes.map(\.type) == ["home", "room", "device", "zone", "note"])
        #expect(statistics.entityTypes.map(\.count) == [1, 2, 3, 1, 1])
        #expect(
            statistics.relationshipTypes.map(\.type)
                == ["located_in", "controls", "documented_by", "connects_to", "monitors"])
        #expect(statistics.relationshipTypes.map(\.count) == [5, 3, 1, 2, 1])
        #expect(statistics.averageDegree == 3.0)
        // 8 entities, 9 distinct ids on edges (ghost has no record): the formula gives −1.
        #expect(statistics.isolatedEntities == -1)
        #expect(try graph.devicesInRoom("r1") == ["d1", "d2"])
        #expect(throws: GraphIndex.RoomError.notARoom("h", type: "home")) {
            try graph.devicesInRoom("h")
        }
        #expect(throws: GraphIndex.RoomError.unknownEntity("x")) { try graph.devicesInRoom("x") }
        #expect(GraphIndex().statistics().averageDegree == 0)
    }

    @Test func aLongChainIsTraversedWithoutExhaustingTheStack() {
        // 100,000 entities in one ring, applied to the view directly (recursion this deep
        // overflowed a test thread's stack).
        let graph = GraphIndex()
        let count = 100_000
        var offset: UInt64 = 0
        func apply(_ recordId: String, _ column: String, _ value: String) {
            graph.apply(
                Change(
                    recordId: recordId, colName: column, value: .string(value), colVersion: 1,
                    dbVersion: offset + 1, nodeId: 1, localDbVersion: offset + 1),
                at: offset)
            offset += 1
        }
        for index in 0..<count {
            apply("entity/n\(index)", "entity_type", "zone")
        }
        for index in 0..<count {
            let record = "relationship/r\(index)"
            apply(record, "from_entity_id", "n\(index)")
            apply(record, "to_entity_id", "n\((index + 1) % count)")
            apply(record, "relationship_type", "connects_to")
        }
        let cycles = graph.detectCycles(from: "n0")
        #expect(cycles.count == 1)
        #expect(cycles.first?.count == count + 1)
        #expect(cycles.first?.first == "n0" && cycles.first?.last == "n0")
        #expect(graph.dfs(from: "n0").count == count)
        #expect(graph.findPath(from: "n0", to: "n5", maxDepth: 10)?.count == 6)
    }

    @Test func updatesAndDeletionsReshapeTheGraph() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.home)
        let graph = home.graph
        try await home.logbook.deleteRecord("relationship/e3")
        #expect(graph.findPath(from: "d1", to: "h") == ["d1", "d2", "r1", "h"])
        try await home.logbook.deleteField("relationship/e4", fieldName: "to_entity_id")
        #expect(graph.findPath(from: "d1", to: "h") == ["d1", "d2", "d3", "r2", "h"])
        // Re-pointing keeps the relationship's place in insertion order.
        try await home.logbook.insertOrUpdate("relationship/e5", fields: [("to_entity_id", "r1")])
        #expect(graph.bfs(from: "d1").map(\.id) == ["d1", "r1", "h", "r2"])
        try await home.logbook.deleteRecord("entity/r1")
        #expect(graph.entity("r1") == nil)
        #expect(graph.bfs(from: "d1").map(\.id) == ["d1"])  // r1 has no record: not expanded
        #expect(graph.statistics().totalEntities == 7)
    }

    @Test
    func theFixtureHomesLoadWithTheirCountsAndInvalidEdges() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.logbook.importGoodies(
            GoodiesDocument(parsing: HomeLogbook.fixture("goodies_martinez_home.json")))
        let statistics = home.graph.statistics()
        #expect(statistics.totalEntities == 33)
        #expect(statistics.totalRelationships == 46)
        #expect(home.graph.invalidRelationships().count == 9)
        #expect(statistics.entityTypes.first?.type == "home")

        let small = try HomeLogbook()
        defer { small.close() }
        try await small.logbook.importGoodies(
            GoodiesDocument(parsing: HomeLogbook.fixture("goodies_build_house.json")))
        #expect(small.graph.statistics().totalEntities == 10)
        #expect(small.graph.statistics().totalRelationships == 11)
        #expect(small.graph.invalidRelationships().isEmpty)
    }

    @Test func badGoodiesFilesNameWhereAndWhat() {
        #expect(throws: GoodiesDocument.FormatError(location: "byte 1", expected: "a quoted key")) {
            try GoodiesDocument(parsing: Array("{,}".utf8))
        }
        #expect(
            throws: GoodiesDocument.FormatError(
                location: "entities[1].id", expected: "a non-empty string")
        ) {
            try GoodiesDocument(
                parsing: Array(
                    #"{"entities": [{"id": "a", "entity_type": "home", "name": "A"}, {"name": "B"}]}"#
                        .utf8))
        }
        #expect(
            throws: GoodiesDocument.FormatError(
                location: "relationships[0].relationship_type", expected: "a string")
        ) {
            try GoodiesDocument(
                parsing: Array(
                    #"{"entities": [], "relationships": [{"id": "r", "from_entity_id": "a", "to_entity_id": "b"}]}"#
                        .utf8))
        }
    }

    @Test func contentBecomesOneColumnPerTopLevelKeyInFileOrder() throws {
        let document = try GoodiesDocument(
            parsing: Array(
                #"{"entities": [{"id": "t", "entity_type": "device", "name": "TV", "source_type": "manual", "content": {"z": 1.0, "a": [1, {"y": 2, "b": 3}], "m": null}}]}"#
                    .utf8))
        let fields = try #require(document.entities.first?.fields)
        #expect(
            fields.map(\.0) == [
                "entity_type", "name", "source_type", "content.z", "content.a", "content.m",
            ])
        #expect(fields[3].1 == .double(1.0))  // a float stays a float
        #expect(fields[5].1 == .null)
    }
}
