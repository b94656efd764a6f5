import Foundation
import LogbookWorkloads

/// What `logbook bench` runs: one suite with its sizes, measured into a `BenchReport`.
public struct BenchSuite: Sendable {
    /// The suites; docs/benchmarks.md describes each figure.
    public enum Kind: String, CaseIterable, Sendable {
        /// Every log figure: appends, replay, compaction, the SQLite and JSON baselines.
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

    /// Which suite.
    public var kind: Kind
    /// Records in the workload; nil for the suite's default (100,000; maintenance 20,000).
    public var records: Int?
    /// Changes per run; nil for the suite's default (1 M; views 10 M).
    public var changes: Int?
    /// views: entities in the generated home graph.
    public var entities = 100_000
    /// views: queries per latency figure.
    public var queries = 2000
    /// shipping: the writers' target rate, changes/s.
    public var rate = 100_000
    /// shipping: seconds of paced writing for the lag figure.
    public var seconds = 5.0
    /// Runs per figure; the median is reported.
    public var runs = 3
    /// Concurrent appenders for the group-commit figure.
    public var writers = 64
    /// Operations for the figures that fsync per call.
    public var syncedOperations = 2000
    /// Scratch directory; replaced while the suite runs and removed afterwards.
    public var directory = "logbook-bench"

    /// The suite `kind` at its default sizes.
    public init(kind: Kind) {
        self.kind = kind
    }

    /// Runs the suite; `progress` hears the name of each step as it starts, with a bar
    /// (`[####----] 3/15`) where the suite knows how many steps it has.
    public func run(progress: @escaping (String) -> Void = { _ in }) async throws -> BenchReport {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (figures, workload) = try await measure(progress: progress)
        let machine = ProcessInfo.processInfo
        return BenchReport(
            machine:
                "\(machine.activeProcessorCount) cores, \(machine.physicalMemory / (1 << 30)) GiB, \(machine.operatingSystemVersionString)",
            workload: workload, figures: figures)
    }

    private func measure(
        progress: @escaping (String) -> Void
    ) async throws -> (figures: [BenchFigure], workload: String) {
        switch kind {
        case .maintenance:
            let benchmark = MaintenanceBenchmark(
                directory: directory + "/maintenance", records: records ?? 20_000, runs: runs,
                progress: progress)
            return (
                try await benchmark.run(),
                "maintenance: standard-workload operations over \(benchmark.records) records, \(benchmark.changes) changes (10 per key); median of \(runs) runs"
            )
        case .shipping:
            let total = changes ?? 1_000_000
            let figures = try await ShippingBenchmark(
                directory: directory, changes: total, rate: rate, seconds: seconds, runs: runs,
                progress: progress
            ).run()
            return (
                figures,
                "shipping: catch-up of \(total) standard-workload changes, median of \(runs); lag at \(rate) changes/s for \(seconds) s"
            )
        case .views:
            let total = changes ?? 10_000_000
            let figures = try await ViewsBenchmark(
                directory: directory, entities: entities, changes: total, runs: runs,
                queries: queries, progress: progress
            ).run()
            return (
                figures,
                "views: generated home of \(entities) entities + 10 years of openings + updates, \(total) changes; rebuild median of \(runs) runs"
            )
        case .log, .replay:
            return (try await logFigures(progress: progress), logWorkload)
        }
    }

    private var logWorkload: String {
        "standard workload: \(records ?? 100_000) records × \(StandardWorkload.columns.count) columns, \(changes ?? 1_000_000) changes; median of \(runs) runs"
    }

    private func logFigures(progress: @escaping (String) -> Void) async throws -> [BenchFigure] {
        var benchmark = LogBenchmark(
            directory: directory, records: records ?? 100_000, changes: changes ?? 1_000_000,
            runs: runs, writers: writers, syncedOperations: syncedOperations,
            readOnly: kind == .replay, progress: { _ in })
        let stepCount = benchmark.stepCount
        var step = 0
        benchmark.progress = { name in
            step += 1
            let done = min(step, stepCount)
            let filled = done * 20 / stepCount
            let bar =
                String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled)
            progress("[\(bar)] \(done)/\(stepCount) \(name)")
        }
        return try await benchmark.run()
    }
}
