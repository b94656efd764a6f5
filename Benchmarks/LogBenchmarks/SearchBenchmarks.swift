import Benchmark
import Foundation
import Logbook
import LogbookViews
import LogbookWorkloads

/// A generated home of 100,000 entities (the views bench's: `HomeGraphGenerator`, seed 5)
/// imported into a Logbook with a `SearchIndex`, built once per process on first use.
final class SearchHome: @unchecked Sendable {
    // @unchecked: `built` is guarded by `lock`; the index guards itself.
    static let entities = 100_000
    static let directoryName = "search-home"
    /// Where the home's log is, once `index()` has built it.
    static var directory: String { ScratchDirectory.path + "/" + directoryName }
    private let lock = NSLock()
    private var built: SearchIndex?

    func index() async throws -> SearchIndex {
        if let built = lock.withLock({ built }) { return built }
        let search = SearchIndex()
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = [search]
        let directory = ScratchDirectory.fresh(Self.directoryName)
        let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
        var generator = HomeGraphGenerator(seed: 5)
        try await logbook.importGoodies(
            try GoodiesDocument(
                parsing: Array(
                    PythonJSON.dumps(generator.document(entities: Self.entities)).utf8)))
        try logbook.close()
        _ = search.search("kitchen")  // builds every index, BM25 included
        lock.withLock { built = search }
        return search
    }
}

let searchHome = SearchHome()

/// One iteration runs the whole `SearchQueryMix` (20 queries) once, per ranking; another
/// rebuilds the views from the home's log.
func searchBenchmarks() {
    // The graph, search and bridge views rebuilt by opening the home's log (read-only, so
    // every iteration replays the same log and writes nothing): what `logbook bench views`
    // measures on 10 M changes, here on the search home's.
    // Ten samples: each takes seconds.
    Benchmark(
        "views-rebuild-graph-search-bridges-\(SearchHome.entities)-entity-home",
        configuration: .init(maxIterations: 10)
    ) { benchmark in
        _ = try await searchHome.index()
        for _ in benchmark.scaledIterations {
            let views = (GraphIndex(), SearchIndex(), BridgeStatsView())
            var options = LogbookOptions()
            options.readOnly = true
            options.views = [views.0, views.1, views.2]
            let logbook = try ResidentGrowth.measure(benchmark) {
                let logbook = try Logbook.open(directory: SearchHome.directory, options: options)
                blackHole(views.1.search("kitchen"))  // builds every search index
                return logbook
            }
            try logbook.close()
        }
    }

    let mix = SearchQueryMix.queries
    let rankings: [(name: String, run: @Sendable (SearchIndex, String) -> [SearchIndex.Result])] = [
        ("goodies-ranking", { index, query in index.search(query) }),
        ("BM25", { index, query in index.searchBM25(query) }),
    ]
    for (name, run) in rankings {
        // A query mix adds 0.2-2 MB: time and allocations only.
        Benchmark(
            "search-\(name)-\(mix.count)-query-mix-\(SearchHome.entities)-entities",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal])
        ) { benchmark in
            let index = try await searchHome.index()
            for _ in benchmark.scaledIterations {
                ResidentGrowth.measure(benchmark) {
                    for query in mix { blackHole(run(index, query)) }
                }
            }
        }
    }
}
