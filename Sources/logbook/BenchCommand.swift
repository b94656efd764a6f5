import ArgumentParser
import Foundation
import LogbookBench

/// `logbook bench [log|replay|views|shipping|maintenance]`: Logbook next to SQLite and JSON,
/// measured in one run by `BenchSuite`.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Logbook against SQLite and JSON persistence in one run.",
        discussion: """
            Suites: `log` — the standard workload (docs/benchmarks.md) appended in each durability \
            mode (1 and N writers, with per-call latency percentiles), by bulk merge, replayed \
            (decode only and into the CRDT), compacted; a 64 MiB segment sealed (early write-back \
            or none); the log's batches through liblz4 and the own LZ4 codec; SQLite (GRDB, WAL, batched) and crdt-lite-style JSON doing the same work in \
            this process; as ceilings LZ4 decompression, the disk's fdatasyncs and N tasks \
            suspended and resumed together (group commit). `replay` — only the read figures. `views` — a log of --changes (default 10 M) \
            over a generated home of --entities entities and ten years of drawbridge openings, \
            rebuilt into the graph, search and bridge views on open; then search and findPath \
            latency percentiles. `shipping` — two nodes on loopback in this process: a new node's \
            catch-up of the standard workload (--changes, default 1 M, over --records) from its \
            state and from its history; 1 % more caught up by a node holding the whole state and \
            by an empty one; replication lag while writers append four-field writes at --rate \
            changes/s. `maintenance` — compaction and tombstone GC of an update-heavy log \
            (--records records, ten writes per column on average), and the compacted log's size \
            next to a log of the live state only. `hub` — the hub's store on the PostgreSQL at \
            --postgres (a throwaway one; `make bench-hub` starts one): ingest into one stream by \
            1, 8 and 64 pushers, updates, a plain INSERT ceiling, readers paging changes, shipped \
            batches and the state. `data` — typed models, an indexed query beside SQLite's, observer delivery, index rebuild. Medians over --runs.

            Build optimized for real figures: swift build -c release --product logbook.
            """)

    @Argument(help: "The suite: log, replay, views, shipping, maintenance, hub, chat or data.")
    var suite: BenchSuite.Kind = .log
    @Option(help: "Records in the workload (default 100,000; maintenance: 20,000).")
    var records: Int?
    @Option(help: "Changes to write per run (default: 1 M; views: 10 M).")
    var changes: Int?
    @Option(help: "views: entities in the generated home graph.")
    var entities = 100_000
    @Option(help: "views: queries per latency figure.")
    var queries = 2000
    @Option(help: "shipping: the writers' target rate, changes/s.")
    var rate = 100_000
    @Option(help: "shipping: seconds of paced writing for the lag figure.")
    var seconds = 5.0
    @Option(help: "Runs per figure; the median is reported.")
    var runs = 3
    @Option(help: "Concurrent appenders for the group-commit figure.")
    var writers = 64
    @Option(help: "Operations for the figures that fsync per call.")
    var syncedOperations = 2000
    @Option(help: "hub: the PostgreSQL URL to measure against (its data is written to).")
    var postgres: String?
    @Option(help: "hub: simulated nodes following one stream (lag figure).")
    var followers = 1000
    @Option(help: "Scratch directory (removed afterwards).")
    var directory = "logbook-bench"
    @Flag(help: "Print one JSON document instead of tables.")
    var json = false
    @Option(help: "Also write a self-contained HTML report with SVG charts to this file.")
    var html: String?

    func validate() throws {
        guard (records ?? 1) > 0, (changes ?? 1) > 0, runs > 0, writers > 0, syncedOperations > 0,
            entities > 0, queries > 0, rate > 0, seconds > 0, seconds.isFinite, followers > 0
        else {
            throw ValidationError("sizes, --rate and --seconds must be positive")
        }
    }

    func run() async throws {
        var benchmark = BenchSuite(
            kind: suite, records: records, changes: changes, entities: entities, queries: queries,
            rate: rate, seconds: seconds, runs: runs, writers: writers,
            syncedOperations: syncedOperations, directory: directory, postgres: postgres)
        benchmark.followers = followers
        let showProgress = ProgressBar.isTerminal && !json
        let report = try await benchmark.run { step in
            guard showProgress else { return }
            var standardError = StandardError()
            print("\u{1B}[2K\r\(step)...", terminator: "", to: &standardError)
        }
        if showProgress {
            var standardError = StandardError()
            print("\u{1B}[2K\r", terminator: "", to: &standardError)
        }
        if let html {
            try report.html().write(toFile: html, atomically: true, encoding: .utf8)
        }
        if json {
            print(try report.json())
        } else {
            print(report.tables(), terminator: "")
            if let html { print("\nHTML report: \(html)") }
        }
    }
}

extension BenchSuite.Kind: ExpressibleByArgument {}
