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
            Every figure is a median over --runs, with the process's peak memory.

            Build optimized for real figures: swift build -c release --product logbook.
            """)

    enum Suite: String, ExpressibleByArgument, CaseIterable {
        /// Every figure.
        case log
        /// Only the read figures (replay, open).
        case replay
    }

    @Argument(help: "The suite to run: log (everything) or replay (read figures only).")
    var suite: Suite = .log
    @Option(help: "Records in the workload.")
    var records = 100_000
    @Option(help: "Changes to write per run.")
    var changes = 1_000_000
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
        guard records > 0, changes > 0, runs > 0, writers > 0, syncedOperations > 0 else {
            throw ValidationError("sizes must be positive")
        }
    }

    func run() async throws {
        let showProgress = ProgressBar.isTerminal && !json
        var standardError = StandardError()
        var step = 0
        var benchmark = LogBenchmark(
            directory: directory, records: records, changes: changes, runs: runs, writers: writers,
            syncedOperations: syncedOperations, readOnly: suite == .replay,
            progress: { _ in })
        let stepCount = benchmark.stepCount
        benchmark.progress = { name in
            guard showProgress else { return }
            step += 1
            let filled = min(20, step * 20 / stepCount)
            let bar =
                String(repeating: "#", count: filled)
                + String(repeating: "-", count: 20 - filled)
            print(
                "\u{1B}[2K\r[\(bar)] \(min(step, stepCount))/\(stepCount) \(name)...",
                terminator: "", to: &standardError)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let figures = try await benchmark.run()
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &standardError) }
        let report = BenchReport(
            machine:
                "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / (1 << 30)) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)",
            workload:
                "standard workload: \(records) records × 5 columns, \(changes) changes; median of \(runs) runs",
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
