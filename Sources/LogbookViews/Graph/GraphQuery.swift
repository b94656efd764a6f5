/// One of The Goodies' graph queries, with what it takes, answered as the JSON
/// `logbook graph --json` prints: ids as strings, paths as id arrays, null for no path.
public enum GraphQuery: String, CaseIterable, Sendable {
    case path, bfs, dfs, subgraph, ancestors, descendants, cycles, centrality, stats, invalid
    case allPaths = "all-paths"
    case devicesInRoom = "devices-in-room"

    /// How many ids the query takes.
    public var idCount: ClosedRange<Int> {
        switch self {
        case .path, .allPaths: 2...2
        case .cycles: 0...1
        case .stats, .invalid: 0...0
        default: 1...1
        }
    }

    /// The bounds and filters a query may take.
    public struct Parameters: Sendable {
        /// path: hops (default 10); bfs, dfs, ancestors, descendants: depth.
        public var maxDepth: Int?
        /// all-paths: entities per path.
        public var maxLength = 5
        /// subgraph: expansion depth.
        public var depth = 1
        /// Only these relationship types.
        public var types: Set<String>?
        /// ancestors, descendants: the relationship type to follow.
        public var type: String?

        /// The defaults.
        public init() {}
    }
}

extension GraphIndex {
    /// The answer to `query` over `ids` (as many as `query.idCount` says), as JSON.
    public func answer(_ query: GraphQuery, ids: [String], _ parameters: GraphQuery.Parameters)
        throws(RoomError) -> OrderedJSON
    {
        let (first, second) = (ids.first ?? "", ids.dropFirst().first ?? "")
        let (maxDepth, types) = (parameters.maxDepth, parameters.types)
        func idList(_ ids: [String]?) -> OrderedJSON {
            ids.map { .array($0.map(OrderedJSON.string)) } ?? .null
        }
        switch query {
        case .path: return idList(findPath(from: first, to: second, maxDepth: maxDepth ?? 10))
        case .bfs:
            return .array(
                bfs(from: first, maxDepth: maxDepth, types: types).map {
                    .object([("id", .string($0.id)), ("depth", .int(Int64($0.depth)))])
                })
        case .dfs: return idList(dfs(from: first, maxDepth: maxDepth, types: types))
        case .allPaths:
            return .array(
                findAllPaths(from: first, to: second, maxLength: parameters.maxLength, types: types)
                    .map(idList))
        case .subgraph:
            let found = subgraph(around: first, depth: parameters.depth, types: types)
            return .object([
                ("entities", idList(found.entities)),
                ("relationships", idList(found.relationships)),
            ])
        case .ancestors:
            return idList(ancestors(of: first, type: parameters.type ?? "", maxDepth: maxDepth))
        case .descendants:
            return idList(descendants(of: first, type: parameters.type ?? "", maxDepth: maxDepth))
        case .cycles: return .array(detectCycles(from: ids.first, types: types).map(idList))
        case .centrality: return .int(Int64(degreeCentrality(of: first)))
        case .stats: return statistics().goodiesJSON
        case .invalid:
            return .array(
                invalidRelationships().map { relationship in
                    .object([
                        ("id", .string(relationship.id)),
                        ("from", .string(relationship.from ?? "")),
                        ("to", .string(relationship.to ?? "")),
                        ("type", .string(relationship.type ?? "")),
                    ])
                })
        case .devicesInRoom: return idList(try devicesInRoom(first))
        }
    }
}
