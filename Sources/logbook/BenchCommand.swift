import ArgumentParser
import Foundation

/// `logbook bench [log|replay]`: Logbook next to SQLite and JSON, measured in one run.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Logbook against SQLite and JSON persistence in one run.",
        discussion: """
            Suites: `log` — the standard workload (docs/benchmarks.md) appended in each \
            durability mode (1 and N writers, with per-call latency percentiles), by bulk \
            merge, replayed (decode only and into the CRDT), compacted; SQLite (WAL, batched) \
            and crdt-lite-style JSON doing the same work in this process; LZ4 decompression \
            and the disk's fdatasync rate as ceilings. `replay` — only the read figures. \
            `views` — a log of --changes (default 10 M) over a generated home of --entities \
            entities and ten years of drawbridge openings, rebuilt into the graph, search and \
            bridge views on open; then search and findPath latency percentiles. `shipping` — \
            two nodes on loopback in this process: catch-up of the standard workload (--changes, \
            default 1 M); 1 % more changes caught up by a node holding the whole state and by \
            an empty one; replication lag while writers append four-field writes at --rate \
            changes/s for --seconds and the peer follows with long polls. `maintenance` — compaction and tombstone GC of an update-heavy log \
            (--records records, ten writes per column on average), and the compacted log's \
            size next to a log of the live state only. \
            Every figure is a median over --runs, with the process's peak memory.

            Build optimized for real figures: swift build -c release --product logbook.
            """)

    enum Suite: String, ExpressibleByArgument, CaseIterable {
        /// Every figure.
        case log
        /// Only the read figures (replay, open).
        case replay
        /// Views rebuilt from a long log, and query latency.
        case views
        /// Catch-up over loopback and replication lag.
        case shipping
        /// Compaction and tombstone GC of an update-heavy log.
        case maintenance
    }

    @Argument(help: "The suite: log, replay, views, shipping or maintenance.")
    var suite: Suite = .log
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
    @Option(help: "Scratch directory (removed afterwards).")
    var directory = "logbook-bench"
    @Flag(help: "Print one JSON document instead of tables.")
    var json = false
    @Option(help: "Also write a self-contained HTML report with SVG charts to this file.")
    var html: String?

    func validate() throws {
        guard (records ?? 1) > 0, (changes ?? 1) > 0, runs > 0, writers > 0, syncedOperations > 0,
            entities > 0, queries > 0
        else {
            throw ValidationError("sizes must be positive")
        }
    }

    func run() async throws {
        let showProgress = ProgressBar.isTerminal && !json
        var standardError = StandardError()
        func announce(_ name: String) {
            guard showProgress else { return }
            print("\u{1B}[2K\r\(name)...", terminator: "", to: &standardError)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let figures: [BenchFigure]
        let workload: String
        if suite == .maintenance {
            let recordCount = records ?? 20_000
            let benchmark = MaintenanceBenchmark(
                directory: directory + "/maintenance", records: recordCount, runs: runs,
                progress: announce)
            figures = try await benchmark.run()
            workload =
                "maintenance: standard-workload operations over \(recordCount) records, \(benchmark.changes) changes (10 per key); median of \(runs) runs"
        } else if suite == .shipping {
            figures = try await ShippingBenchmark(
                directory: directory, changes: changes ?? 1_000_000, rate: rate, seconds: seconds,
                runs: runs, progress: announce
            ).run()
            workload =
                "shipping: catch-up of \(changes ?? 1_000_000) standard-workload changes, median of \(runs); lag at \(rate) changes/s for \(seconds) s"
        } else if suite == .views {
            let total = changes ?? 10_000_000
            figures = try await ViewsBenchmark(
                directory: directory, entities: entities, changes: total, runs: runs,
                queries: queries, progress: announce
            ).run()
            workload =
                "views: generated home of \(entities) entities + 10 years of openings + updates, \(total) changes; rebuild median of \(runs) runs"
        } else {
            var step = 0
            var benchmark = LogBenchmark(
                directory: directory, records: records ?? 100_000, changes: changes ?? 1_000_000,
                runs: runs,
                writers: writers, syncedOperations: syncedOperations, readOnly: suite == .replay,
                progress: { _ in })
            let stepCount = benchmark.stepCount
            benchmark.progress = { name in
                step += 1
                let filled = min(20, step * 20 / stepCount)
                let bar =
                    String(repeating: "#", count: filled)
                    + String(repeating: "-", count: 20 - filled)
                announce("[\(bar)] \(min(step, stepCount))/\(stepCount) \(name)")
            }
            figures = try await benchmark.run()
            workload =
                "standard workload: \(records ?? 100_000) records × 5 columns, \(changes ?? 1_000_000) changes; median of \(runs) runs"
        }
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &standardError) }
        let report = BenchReport(
            machine:
                "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / (1 << 30)) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)",
            workload: workload,
            figures: figures)
        if let html {
            try report.html().write(toFile: html, atomically: true, encoding: .utf8)
        }
        if json {
            print(try report.json())
        } else {
            report.printTables()
            if let html { print("\nHTML report: \(html)") }
        }
    }
}
