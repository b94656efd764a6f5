import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookViews

/// `logbook graph DIR QUERY IDS... [--json]`: The Goodies' graph queries over the log.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Query the home graph kept from the entity/ and relationship/ records.",
        discussion: """
            Opens the Logbook with the GraphIndex view (rebuilt by replay) and answers one \
            query with The Goodies' semantics; edges are visited in insertion order.
              path FROM TO            shortest path over outgoing edges (--max-depth, 10)
              bfs START | dfs START   traversal over outgoing edges (--max-depth, --types)
              all-paths FROM TO       every simple path (--max-length nodes, 5; --types)
              subgraph CENTER         both directions (--depth, 1; --types)
              ancestors ID --type T   up one relationship type (--max-depth)
              descendants ID --type T down one relationship type (--max-depth)
              cycles [START]          closed walks such as a → b → c → a (--types)
              centrality ID           in-degree + out-degree
              stats                   counts by type, average degree, isolated entities
              devices-in-room ROOM    devices with a located_in edge to the room
              invalid                 edges whose entity types The Goodies would reject
            With --json one JSON document is printed: ids as strings, paths as id arrays, \
            null when there is no path.
            """)

    typealias Query = GraphQuery

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "The query: \(Query.allCases.map(\.rawValue).joined(separator: ", ")).")
    var query: Query
    @Argument(help: "Entity ids the query takes.")
    var ids: [String] = []
    @Option(help: "path: hops (default 10); bfs, dfs, ancestors, descendants: depth.")
    var maxDepth: Int?
    @Option(help: "all-paths: entities per path (default 5).")
    var maxLength = 5
    @Option(help: "subgraph: expansion depth (default 1).")
    var depth = 1
    @Option(help: "Only these relationship types, comma-separated.")
    var types: String?
    @Option(help: "ancestors, descendants: the relationship type to follow.")
    var type: String?
    @Flag(help: "Print one JSON document.")
    var json = false

    func validate() throws {
        guard query.idCount.contains(ids.count) else {
            let wanted =
                query.idCount.lowerBound == query.idCount.upperBound
                ? "\(query.idCount.lowerBound)" : "at most \(query.idCount.upperBound)"
            throw ValidationError("\(query.rawValue) takes \(wanted) id(s), got \(ids.count)")
        }
        if query == .ancestors || query == .descendants, type == nil {
            throw ValidationError("\(query.rawValue) needs --type, e.g. --type located_in")
        }
        if let maxDepth, maxDepth < 0 { throw ValidationError("--max-depth must be ≥ 0") }
        guard maxLength >= 1, depth >= 0 else {
            throw ValidationError("--max-length must be ≥ 1 and --depth ≥ 0")
        }
    }

    func run() throws {
        let graph = GraphIndex()
        let logbook = try openLogbook(
            target.directory, durability: .buffered, views: [graph], readOnly: true)
        defer { try? logbook.close() }  // read-only use: nothing pending to lose
        var parameters = GraphQuery.Parameters()
        (parameters.maxDepth, parameters.maxLength) = (maxDepth, maxLength)
        (parameters.depth, parameters.type) = (depth, type)
        parameters.types = types.map { Set($0.split(separator: ",").map(String.init)) }
        let answer: OrderedJSON
        do { answer = try graph.answer(query, ids: ids, parameters) } catch {
            throw exitWithError(error)
        }
        if json {
            print(PythonJSON.dumps(answer))
        } else {
            print(readableGraphAnswer(answer, query: query, graph: graph))
        }
    }
}

extension GraphQuery: ExpressibleByArgument {}
