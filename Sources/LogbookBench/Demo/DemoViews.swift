import Foundation
import Logbook
import LogbookViews
import LogbookWorkloads

/// Part 3 of the demo: the fixture homes and a generated year of drawbridge openings go into
/// a Logbook, the three views answer a path, a search and a bridge summary, and a reopen
/// rebuilds them by replay to the same digests.
struct DemoViews {
    let directory: String
    let narrate: (String) -> Void

    /// Where the shared fixtures are when the demo runs from the repository root.
    static let fixtureDirectory = "../shared/fixtures"

    func run() async throws {
        try DemoDirectory.replace(directory)
        narrate(
            "\n== Views rebuilt by replay: a home graph, search, drawbridge statistics in \(directory)/"
        )
        var views = Self.views()
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = views.all
        let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
        let (homeStart, homeEnd) = try await importHome(into: logbook)

        let path = views.graph.findPath(from: homeStart, to: homeEnd) ?? []
        narrate(
            "\npath \(homeStart) → \(homeEnd): "
                + path.map { id in
                    "\(id) (\(views.graph.entity(id)?.name ?? "?"))"
                }.joined(separator: " → "))
        narrate("\nsearch \"thermostat\":")
        for result in views.search.search("thermostat", limit: 3) {
            narrate("  \(String(format: "%5.2f", result.score))  \(result.id)  \(result.name)")
        }
        narrate("\ndrawbridges:")
        narrate(
            TextTable.render(
                header: ["id", "bridge", "openings", "average", "longest"],
                rows: views.bridges.summaries().map {
                    [
                        "\($0.entityId)", $0.name, "\($0.openings)",
                        BridgeStatsView.durationLabel(minutes: $0.averageMinutes),
                        BridgeStatsView.durationLabel(minutes: Double($0.longestMinutes)),
                    ]
                }
            ).trimmingCharacters(in: .newlines))
        let digests = views.all.map { $0.digest() }
        try logbook.close()

        views = Self.views()
        options.views = views.all
        let started = ContinuousClock.now
        let reopened = try Logbook.open(directory: directory, options: options)
        let seconds = (ContinuousClock.now - started).seconds
        let same = views.all.map { $0.digest() } == digests
        narrate(
            "\nreopened: \(reopened.replayStatistics.changes) changes replayed into 3 views in \(String(format: "%.3f", seconds)) s; digests \(same ? "equal to the incremental views'" : "DIFFERENT")"
        )
        try reopened.close()
        if !same {
            throw DemoError.diverged("the views rebuilt by replay and the incremental views")
        }
        narrate(
            "next: logbook graph \(directory) stats; logbook search \(directory) wifi; logbook bridges \(directory) heatmap"
        )
    }

    /// The Goodies' fixture homes (or a generated home without them) and a generated year of
    /// drawbridge openings; returns two entities a path joins.
    private func importHome(into logbook: Logbook) async throws -> (start: String, end: String) {
        var imported = 0
        for name in ["goodies_martinez_home.json", "goodies_build_house.json"] {
            let path = "\(Self.fixtureDirectory)/\(name)"
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            let document = try GoodiesDocument(parsing: Array(bytes))
            try await logbook.importGoodies(document)
            imported += 1
            narrate(
                "imported \(path): \(document.entities.count) entities, \(document.relationships.count) relationships"
            )
        }
        if imported == 0 {
            // Without ../shared, a generated home; its path runs from a device to the home.
            var generator = HomeGraphGenerator(seed: 7)
            let document = try GoodiesDocument(
                parsing: Array(PythonJSON.dumps(generator.document(entities: 300)).utf8))
            try await logbook.importGoodies(document)
            narrate(
                "\(Self.fixtureDirectory) not found: imported a generated home of 300 entities instead"
            )
        }
        var feed = DrawbridgeFeedGenerator(seed: 1)
        let rows = feed.rows(years: 1)
        let (openings, skipped) = try await logbook.importBridgeRows(rows)
        narrate(
            "imported a generated year of drawbridge openings: \(openings) rows, \(skipped.values.reduce(0, +)) skipped"
        )
        return imported == 0 ? ("device-0-0-0", "home-0") : ("tv", "main_home")
    }

    private static func views() -> (
        graph: GraphIndex, search: SearchIndex, bridges: BridgeStatsView,
        all: [any MaterializedView]
    ) {
        let graph = GraphIndex()
        let search = SearchIndex()
        let bridges = BridgeStatsView()
        return (graph, search, bridges, [graph, search, bridges])
    }
}
