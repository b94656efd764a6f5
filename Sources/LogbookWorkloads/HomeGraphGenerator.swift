import LogbookViews

/// Goodies-format home graphs of any size, seeded: homes with zones and rooms, devices in
/// rooms (some controlling others), and the manuals, procedures, notes, schedules,
/// automations and apps around them, with content in the shapes the Goodies demo home uses.
///
/// About one home per 2,000 entities; every entity sits on at least one edge. The same seed
/// and size give the same document.
public struct HomeGraphGenerator {
    private var random: SeededGenerator
    private var entities: [OrderedJSON] = []
    private var relationships: [OrderedJSON] = []

    static let roomNames = [
        "Kitchen", "Living Room", "Master Bedroom", "Office", "Garage", "Hallway", "Bathroom",
        "Dining Room", "Guest Room", "Laundry", "Basement", "Nursery", "Attic", "Patio",
    ]
    static let deviceKinds: [(name: String, capabilities: [String])] = [
        ("Smart Light", ["power", "brightness", "color"]),
        ("Thermostat", ["temperature", "schedule"]),
        ("Smart Plug", ["power", "energy"]), ("Door Lock", ["lock", "unlock", "keypad"]),
        ("Motion Sensor", ["motion", "battery"]), ("Smart TV", ["power", "volume", "input"]),
        ("Speaker", ["volume", "voice"]), ("Camera", ["video", "motion", "night_vision"]),
        ("Smoke Detector", ["smoke", "co", "battery"]), ("Blinds", ["open", "close", "position"]),
        ("Fridge", ["temperature", "door_sensor"]), ("Oven", ["temperature", "timer", "preheat"]),
    ]
    static let brands = [
        "Philips Hue", "Nest", "Ecobee", "Yale", "Sonos", "Samsung", "Ring", "Lutron", "Mitsubishi",
        "Bosch",
    ]
    static let noteTexts = [
        "Filter replaced in spring; next change due in the fall.",
        "Reset by holding the button for ten seconds until the light blinks.",
        "Wi-Fi network for guests is on the second access point.",
        "Battery is a CR2032; spare ones are in the kitchen drawer.",
        "Installer left the warranty card in the garage cabinet.",
    ]

    /// A generator for `seed`.
    public init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// A Goodies document (`{"entities": [...], "relationships": [...]}`) of `count` entities.
    public mutating func document(entities count: Int) -> OrderedJSON {
        entities = []
        relationships = []
        let homes = max(1, count / 2000)
        var home = 0
        while entities.count < count {
            addHome(home, entityBudget: (count - entities.count) / max(1, homes - home))
            home += 1
        }
        entities = Array(entities.prefix(count))
        let kept = Set(entities.compactMap { $0["id"]?.stringValue })
        relationships = relationships.filter {
            kept.contains($0["from_entity_id"]?.stringValue ?? "")
                && kept.contains($0["to_entity_id"]?.stringValue ?? "")
        }
        return .object([("entities", .array(entities)), ("relationships", .array(relationships))])
    }

    private mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &random)]
    }

    private mutating func entity(
        _ id: String, _ type: GoodiesEntityType, _ name: String, _ content: [(String, OrderedJSON)]
    ) {
        entities.append(
            .object([
                ("id", .string(id)), ("entity_type", .string(type.rawValue)),
                ("name", .string(name)),
                ("content", .object(content.map { (key: $0.0, value: $0.1) })),
                ("source_type", .string("generated")),
            ]))
    }

    private mutating func relate(_ from: String, _ to: String, _ type: GoodiesRelationshipType) {
        relationships.append(
            .object([
                ("id", .string("rel-\(relationships.count)")), ("from_entity_id", .string(from)),
                ("to_entity_id", .string(to)), ("relationship_type", .string(type.rawValue)),
                ("properties", .object([])),
            ]))
    }

    private mutating func addHome(_ number: Int, entityBudget: Int) {
        let home = "home-\(number)"
        let start = entities.count
        entity(
            home, .home, "Home \(number)",
            [
                ("address", .string("\(100 + number) Maple Street")),
                ("floors", .int(Int64(Int.random(in: 1...3, using: &random)))),
                ("timezone", .string("America/Los_Angeles")),
            ])
        let zones = (0..<2).map { "zone-\(number)-\($0)" }
        for (index, zone) in zones.enumerated() {
            entity(
                zone, .zone, index == 0 ? "Ground Floor \(number)" : "Upstairs \(number)",
                [("level", .int(Int64(index)))])
            relate(zone, home, .partOf)
        }
        let app = "app-\(number)"
        entity(
            app, .app, "\(pick(Self.brands)) App \(number)",
            [("platform", .string(pick(["ios", "android", "web"])))])
        relate(home, app, .controlledByApp)
        var rooms: [String] = []
        var devices: [String] = []
        var roomIndex = 0
        while entities.count - start < entityBudget {
            let room = "room-\(number)-\(roomIndex)"
            let roomName = Self.roomNames[roomIndex % Self.roomNames.count]
            entity(
                room, .room,
                roomIndex < Self.roomNames.count
                    ? "\(roomName) \(number)" : "\(roomName) \(number)-\(roomIndex)",
                [
                    ("floor", .int(Int64(roomIndex % 2))),
                    ("area_sqft", .int(Int64(Int.random(in: 60...400, using: &random)))),
                ])
            relate(room, home, .locatedIn)
            relate(room, pick(zones), .partOf)
            if let previous = rooms.last, random.chance(0.3) { relate(room, previous, .connectsTo) }
            rooms.append(room)
            for deviceIndex in 0..<Int.random(in: 4...12, using: &random) {
                let kind = pick(Self.deviceKinds)
                let brand = pick(Self.brands)
                let device = "device-\(number)-\(roomIndex)-\(deviceIndex)"
                entity(
                    device, .device,
                    "\(roomName) \(kind.name) \(number)-\(roomIndex)-\(deviceIndex)",
                    [
                        ("brand", .string(brand)),
                        (
                            "model",
                            .string(
                                "\(brand.prefix(3).uppercased())-\(Int.random(in: 100...999, using: &random))"
                            )
                        ),
                        ("capabilities", .array(kind.capabilities.map(OrderedJSON.string))),
                        (
                            "firmware",
                            .string(
                                "\(Int.random(in: 1...5, using: &random)).\(Int.random(in: 0...9, using: &random))"
                            )
                        ),
                    ])
                relate(device, room, .locatedIn)
                if let other = devices.last, random.chance(0.15) {
                    relate(device, other, .controls)
                }
                if random.chance(0.2) { relate(device, app, .controlledByApp) }
                devices.append(device)
                if random.chance(0.1) {
                    let manual = "manual-\(device)"
                    entity(
                        manual, .manual, "\(brand) \(kind.name) Manual",
                        [
                            ("pages", .int(Int64(Int.random(in: 8...120, using: &random)))),
                            ("language", "en"),
                        ])
                    relate(device, manual, .documentedBy)
                }
                if random.chance(0.05) {
                    let procedure = "procedure-\(device)"
                    entity(
                        procedure, .procedure,
                        "Reset \(kind.name) \(number)-\(roomIndex)-\(deviceIndex)",
                        [
                            (
                                "steps",
                                .array(["Hold the button", "Wait for the light", "Pair again"])
                            )
                        ])
                    relate(procedure, device, .procedureFor)
                }
                if random.chance(0.05) {
                    let note = "note-\(device)"
                    entity(
                        note, .note, "Note on \(kind.name) \(number)-\(roomIndex)-\(deviceIndex)",
                        [("text", .string(pick(Self.noteTexts)))])
                    relate(device, note, .documentedBy)
                }
            }
            if random.chance(0.3), let device = devices.last {
                let automation = "automation-\(number)-\(roomIndex)"
                entity(
                    automation, .automation, "\(roomName) Evening Scene \(number)-\(roomIndex)",
                    [
                        ("trigger", .object([("type", "time"), ("time", "19:00")])),
                        ("enabled", .bool(true)),
                    ])
                relate(automation, device, .automates)
                relate(automation, room, .automates)
                let schedule = "schedule-\(number)-\(roomIndex)"
                entity(
                    schedule, .schedule, "\(roomName) Weekday Schedule \(number)-\(roomIndex)",
                    [("days", .array(["mon", "tue", "wed", "thu", "fri"]))])
                relate(automation, schedule, .triggeredBy)
                relate(schedule, automation, .manages)
            }
            roomIndex += 1
        }
    }
}
