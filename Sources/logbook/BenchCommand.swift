import ArgumentParser
import Foundation

/// `logbook bench log`: measures the log with the standard workload.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Logbook with the standard workload (see docs/benchmarks.md).",
        discussion: """
            Suites: `log` (append in each durability mode, replay, open, bytes per change, and
            LZ4's own decompression as the ceiling); `replay` (the read figures only). Build with -c release for real figures:
            swift run -c release logbook bench log
            """)

    enum Suite: String, ExpressibleByArgument, CaseIterable {
        /// Every log figure.
        case log
        /// Only the read figures (replay, open, size, LZ4 ceiling).
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
    @Option(help: "Scratch directory (removed afterwards).")
    var directory = "logbook-bench"
    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    func validate() throws {
        guard records > 0, changes > 0, runs > 0, writers > 0 else {
            throw ValidationError("sizes must be positive")
        }
    }

    func run() async throws {
        let showProgress = ProgressBar.isTerminal && !json
        var standardError = StandardError()
        let benchmark = LogBenchmark(
            directory: directory, records: records, changes: changes, runs: runs, writers: writers,
            readOnly: suite == .replay,
            progress: { step in
                if showProgress {
                    print("\u{1B}[2K\r\(step)...", terminator: "", to: &standardError)
                }
            })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let results = try await benchmark.run()
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &standardError) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
            return
        }
        print(
            "standard workload: \(records) records x 5 columns, \(changes) changes, median of \(runs) runs, \(ProcessInfo.processInfo.activeProcessorCount) cores"
        )
        printTable(
            header: ["figure", "changes/s", "raw MB/s", "note"],
            rows: results.map { result in
                [
                    result.name,
                    result.changesPerSecond > 0 ? formatCount(result.changesPerSecond) : "-",
                    result.rawMegabytesPerSecond.map { String(format: "%.0f", $0) } ?? "-",
                    result.note,
                ]
            })
    }
}
