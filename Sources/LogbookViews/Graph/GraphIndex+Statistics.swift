import Foundation

/// Counts and checks over the whole graph.
extension GraphIndex {
    /// The Goodies' graph statistics.
    public struct Statistics: Equatable, Sendable {
        /// Entity records.
        public var totalEntities: Int
        /// Relationship records with from, to and type.
        public var totalRelationships: Int
        /// Entities per type, in the Goodies' entity-type order, zero counts left out
        /// (types outside that list follow in first-seen order).
        public var entityTypes: [(type: String, count: Int)]
        /// Relationships per type in first-seen order.
        public var relationshipTypes: [(type: String, count: Int)]
        /// round(2E / N, 2), 0 for an empty graph.
        public var averageDegree: Double
        /// N − the number of distinct ids on any edge.
        public var isolatedEntities: Int

        /// Member-wise equality.
        public static func == (lhs: Statistics, rhs: Statistics) -> Bool {
            lhs.totalEntities == rhs.totalEntities
                && lhs.totalRelationships == rhs.totalRelationships
                && lhs.entityTypes.elementsEqual(rhs.entityTypes) { $0 == $1 }
                && lhs.relationshipTypes.elementsEqual(rhs.relationshipTypes) { $0 == $1 }
                && lhs.averageDegree == rhs.averageDegree
                && lhs.isolatedEntities == rhs.isolatedEntities
        }
    }

    /// The statistics of the current graph.
    public func statistics() -> Statistics {
        lock.lock()
        defer { lock.unlock() }
        var typeCounts: [String: Int] = [:]
        var typeOrder: [String] = []
        for entity in entities.values.sorted(by: { $0.sequence < $1.sequence }) {
            guard let type = entity.type else { continue }
            if typeCounts[type] == nil { typeOrder.append(type) }
            typeCounts[type, default: 0] += 1
        }
        let known = GoodiesEntityType.allCases.map(\.rawValue)
        let entityTypes = (known + typeOrder.filter { !known.contains($0) }).compactMap { type in
            typeCounts[type].map { (type: type, count: $0) }
        }
        var relationshipCounts: [String: Int] = [:]
        var relationshipOrder: [String] = []
        var onEdges: Set<String> = []
        var edgeCount = 0
        for relationship in relationships.values.sorted(by: { $0.sequence < $1.sequence }) {
            guard let edge = relationship.edge else { continue }
            edgeCount += 1
            if relationshipCounts[edge.type] == nil { relationshipOrder.append(edge.type) }
            relationshipCounts[edge.type, default: 0] += 1
            onEdges.insert(edge.from)
            onEdges.insert(edge.to)
        }
        let count = entities.count
        let average =
            count == 0 ? 0 : (Double(2 * edgeCount) / Double(count) * 100).rounded() / 100
        return Statistics(
            totalEntities: count, totalRelationships: edgeCount, entityTypes: entityTypes,
            relationshipTypes: relationshipOrder.map { ($0, relationshipCounts[$0] ?? 0) },
            averageDegree: average, isolatedEntities: count - onEdges.count)
    }

    /// Why `devicesInRoom` refused.
    public enum RoomError: Error, Equatable, CustomStringConvertible {
        /// No entity has this id.
        case unknownEntity(String)
        /// The entity is not a room.
        case notARoom(String, type: String?)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .unknownEntity(let id): "no entity '\(id)'"
            case .notARoom(let id, let type): "'\(id)' is a \(type ?? "untyped entity"), not a room"
            }
        }
    }

    /// The device entities with a `located_in` edge to `room`, in edge order.
    public func devicesInRoom(_ room: String) throws(RoomError) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        guard let entity = entities[room] else { throw .unknownEntity(room) }
        guard entity.type == GoodiesEntityType.room.rawValue else {
            throw .notARoom(room, type: entity.type)
        }
        var seen: Set<String> = []
        return edges(to: room, types: [GoodiesRelationshipType.locatedIn.rawValue]).compactMap {
            guard entities[$0.from]?.type == GoodiesEntityType.device.rawValue,
                seen.insert($0.from).inserted
            else { return nil }
            return $0.from
        }
    }

    /// The (from type, to type) pairs The Goodies accepts for each relationship type.
    /// Ingest does not enforce them (real homes break them); `invalidRelationships` reports.
    public static let validTypePairs: [String: Set<[String]>] = [
        "located_in": [
            ["device", "room"], ["device", "zone"], ["room", "zone"], ["room", "home"],
            ["zone", "home"],
        ],
        "controls": [
            ["device", "device"], ["automation", "device"], ["schedule", "device"],
            ["schedule", "automation"],
        ],
        "connects_to": [
            ["room", "room"], ["door", "room"], ["window", "room"], ["zone", "zone"],
        ],
        "part_of": [["room", "home"], ["zone", "home"], ["device", "zone"]],
        "documented_by": [
            ["device", "manual"], ["device", "procedure"], ["home", "manual"], ["room", "note"],
        ],
        "procedure_for": [["procedure", "device"], ["procedure", "home"]],
        "triggered_by": [["automation", "device"], ["automation", "schedule"]],
        "manages": [["automation", "device"], ["schedule", "automation"]],
        "monitors": [["device", "room"], ["device", "zone"], ["automation", "device"]],
        "automates": [["automation", "device"], ["automation", "room"], ["automation", "zone"]],
        "controlled_by_app": [["device", "app"], ["home", "app"], ["automation", "app"]],
    ]

    /// Relationships whose (from type, to type) The Goodies would reject, in insertion order.
    public func invalidRelationships() -> [Relationship] {
        lock.lock()
        defer { lock.unlock() }
        return relationships.values.sorted { $0.sequence < $1.sequence }.filter { relationship in
            guard let edge = relationship.edge else { return false }
            let pair = [entities[edge.from]?.type ?? "", entities[edge.to]?.type ?? ""]
            return !(Self.validTypePairs[edge.type]?.contains(pair) ?? false)
        }
    }
}
