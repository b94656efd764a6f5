import Logbook
import LogbookViews

/// A `logbook graph` answer as lines for a person: entities labeled with their type and
/// name, paths with arrows, traversals and statistics as tables. (`--json` prints the
/// answer itself.)
package func readableGraphAnswer(_ answer: OrderedJSON, query: GraphQuery, graph: GraphIndex)
    -> String
{
    func label(_ id: String) -> String {  // made terminalSafe: ids and names are data
        guard let entity = graph.entity(id) else { return terminalSafe(id) }
        return terminalSafe("\(id) (\(entity.type ?? "?"): \(entity.name ?? ""))")
    }
    func table(_ header: [String], _ rows: [[String]]) -> String {
        String(TextTable.render(header: header, rows: rows).dropLast())  // its own newline
    }
    var lines: [String] = []
    switch (query, answer) {
    case (_, .null): lines.append("no path")
    case (.path, .array(let items)), (.dfs, .array(let items)), (.ancestors, .array(let items)),
        (.descendants, .array(let items)), (.devicesInRoom, .array(let items)):
        if items.isEmpty { lines.append("(none)") }
        let separator = query == .path ? "\n  → " : "\n  "
        lines.append("  " + items.compactMap(\.stringValue).map(label).joined(separator: separator))
    case (.bfs, .array(let items)):
        let rows = items.map {
            ["\($0["depth"].map(PythonJSON.dumps) ?? "")", label($0["id"]?.stringValue ?? "")]
        }
        lines.append(table(["depth", "entity"], rows))
    case (.allPaths, .array(let paths)), (.cycles, .array(let paths)):
        if paths.isEmpty { lines.append("(none)") }
        for case .array(let path) in paths {
            lines.append(
                "  "
                    + path.compactMap(\.stringValue).map { terminalSafe($0) }.joined(
                        separator: " → "))
        }
    case (.stats, _):
        let statistics = graph.statistics()
        lines.append(
            "\(statistics.totalEntities) entities, \(statistics.totalRelationships) relationships, average degree \(statistics.averageDegree), \(statistics.isolatedEntities) isolated"
        )
        lines.append(
            table(
                ["entity type", "count"], statistics.entityTypes.map { [$0.type, "\($0.count)"] }))
        lines.append(
            table(
                ["relationship type", "count"],
                statistics.relationshipTypes.map { [$0.type, "\($0.count)"] }))
    default:
        lines.append(terminalSafe(PythonJSON.dumps(answer)))
    }
    return lines.joined(separator: "\n")
}
