// Home: a smart-home knowledge graph. The Goodies' Martinez home (its entities and
// relationships) is imported as records; typed models read and write them; the graph and
// search views answer as The Goodies does; a device added in a transaction shows up in all
// of them, and again after the app reopens its store.
//
//     swift run Home [directory] [home.json]   (a temporary directory and the Martinez home)
import Foundation
import Logbook
import LogbookData
import LogbookViews

// MARK: 1. Typed entities over The Goodies' layout
// An entity is the record `entity/<id>` with the columns `entity_type`, `name`, and one
// `content.<key>` column per content key; a relationship is `relationship/<id>`. Coding keys
// name those columns, so a model reads what the importer (or another client) wrote, and a
// save writes the same layout. The id is not a column there: it comes from the record id.

struct Entity: LogbookModel {
    static let recordPrefix = GoodiesRecords.entityPrefix
    var id: String
    var type: String
    var name: String
    var manufacturer: String?
    var model: String?
    var capabilities: [String]?

    enum CodingKeys: String, CodingKey {
        case id, name
        case type = "entity_type"
        case manufacturer = "content.manufacturer"
        case model = "content.model"
        case capabilities = "content.capabilities"
    }
}

struct Relationship: LogbookModel {
    static let recordPrefix = GoodiesRecords.relationshipPrefix
    var id: String
    var from: String
    var to: String
    var type: String

    enum CodingKeys: String, CodingKey {
        case id
        case from = "from_entity_id"
        case to = "to_entity_id"
        case type = "relationship_type"
    }
}

// MARK: 2. The store and its views
// The graph and search are The Goodies' own queries over every entity; the two model indexes
// answer typed questions ("devices by name", "what is in this room").

final class Home: Sendable {
    let logbook: Logbook
    let graph = GraphIndex()
    let search = SearchIndex()
    let byType = ModelIndex(Entity.self, on: ["entity_type", "name"])
    let byTarget = ModelIndex(Relationship.self, on: ["to_entity_id", "relationship_type"])

    init(at directory: URL) throws {
        var options = LogbookOptions()
        options.views = [graph, search, byType, byTarget]
        options.viewCheckpoints = true  // the next open restores them instead of replaying
        logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
    }

    func entities(ofType type: String) throws -> [Entity] {
        try logbook.query(byType, .equal(.string(type))).models
    }

    /// What is located in `room`, by name.
    func contents(of room: String) throws -> [String] {
        let located = try logbook.query(byTarget, .equal(.string(room), "located_in")).models
        return try located.compactMap { try logbook.model(Entity.self, id: $0.from)?.name }.sorted()
    }
}

func check(_ condition: Bool, _ what: String) {
    print(condition ? "  ✓ \(what)" : "  ✗ \(what)")
    if !condition { exit(1) }
}

// MARK: 3. Import The Goodies' home

let arguments = CommandLine.arguments.dropFirst()
let directory =
    arguments.first.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("logbook-home-\(UUID())")
let fixture =
    arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../Fixtures/third-party/goodies_martinez_home.json")

let document = try GoodiesDocument(parsing: Array(try Data(contentsOf: fixture)))
var home = try Home(at: directory)
try await home.logbook.importGoodies(document)
print(
    "Imported \(document.entities.count) entities and \(document.relationships.count) "
        + "relationships from \(fixture.lastPathComponent).")

// MARK: 4. Ask it things

let devices = try home.entities(ofType: "device")
print("Devices, by name (a typed index query):")
for device in devices {
    print("  \(device.name) — \(device.manufacturer ?? "?") \(device.model ?? "")")
}
check(devices.count == 8, "8 devices, read as typed models from the importer's records")
print("In the kitchen: " + (try home.contents(of: "kitchen")).joined(separator: ", "))

let path = home.graph.findPath(from: "fridge", to: "main_home") ?? []
print("A path through the graph: " + path.joined(separator: " → "))
check(path == ["fridge", "kitchen", "main_home"], "the fridge is in the kitchen, part of the home")

print("Search, ranked as The Goodies ranks it:")
for hit in home.search.search("thermostat", limit: 3) {
    print("  \(hit.name) (\(hit.entityType ?? "?"), \(String(format: "%.2f", hit.score)))")
}

// MARK: 5. Add a device, typed, in one transaction
// The entity and its relationship are one batch of the log: a crash keeps both or neither,
// so the graph never holds a lamp that is nowhere.

let lamp = Entity(
    id: "kitchen_lamp", type: "device", name: "Kitchen Pendant Lamp", manufacturer: "IKEA",
    model: "Tradfri", capabilities: ["power", "brightness"])
try await home.logbook.transaction { transaction in
    try transaction.save(lamp)
    try transaction.save(
        Relationship(id: "rel-lamp-kitchen", from: lamp.id, to: "kitchen", type: "located_in"))
}
check(
    try home.contents(of: "kitchen").contains("Kitchen Pendant Lamp"), "the lamp is in the kitchen")
check(
    home.graph.findPath(from: "kitchen_lamp", to: "main_home")?.count == 3,
    "and the graph finds its way home")
check(home.search.search("pendant lamp", limit: 1).first?.id == "kitchen_lamp", "search finds it")

// An update writes only the property it changes: one column, one change.
let changes = try await home.logbook.update(Entity.self, id: "kitchen_lamp") {
    $0.model = "Tradfri E27"
}
check(changes.map(\.colName) == ["content.model"], "renaming the model wrote one column")

// MARK: 6. Reopen, as the app does at its next launch

let before = (home.graph.digest(), home.search.digest(), home.byType.digest())
try home.logbook.close()
home = try Home(at: directory)
let status = home.logbook.viewCheckpointStatus.values.map { "\($0)" }.sorted()
print("Reopened; the views: " + status.joined(separator: ", "))
check(
    (home.graph.digest(), home.search.digest(), home.byType.digest()) == before,
    "the views answer as before")
check(try home.entities(ofType: "device").count == 9, "9 devices now")
try home.logbook.close()
print("Done; the store is \(directory.path)")
