import Foundation
import LogbookHub
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
        /// The hub's store on PostgreSQL (`postgres` must name a database).
        case hub
        /// A chat app's history written and opened, in the build this runs in (debug or
        /// release; `records` messages, 100,000 by default).
        case chat
        /// The data layer: typed puts and gets, an indexed query next to SQLite's, an
        /// observer's delivery, an index rebuilt on open (`records` messages, 100,000).
        case data
    }

    /// Which suite.
    public var kind: Kind
    /// Records in the workload; nil for the suite's default (100,000; maintenance 20,000).
    public var records: Int?
    /// Changes per run; nil for the suite's default (1 M; views 10 M).
    public var changes: Int?
    /// views: entities in the generated home graph.
    public var entities: Int
    /// views: queries per latency figure.
    public var queries: Int
    /// shipping: the writers' target rate, changes/s.
    public var rate: Int
    /// shipping: seconds of paced writing for the lag figure.
    public var seconds: Double
    /// Runs per figure; the median is reported.
    public var runs: Int
    /// Concurrent appenders for the group-commit figure.
    public var writers: Int
    /// Operations for the figures that fsync per call.
    public var syncedOperations: Int
    /// hub: the PostgreSQL to measure against (a throwaway one: the suite writes streams).
    public var postgres: String?
    /// hub: simulated nodes following one stream for the lag figure.
    public var followers = 1000
    /// hub: Logbook nodes writing at once for the convergence figure.
    public var hubWriters = 100
    /// hub: seconds of pushing for the lag figure.
    public var hubFollowSeconds = 10
    /// hub: changes per push.
    public var pushChanges = 1000
    /// Scratch directory; replaced while the suite runs and removed afterwards.
    public var directory: String

    /// The suite `kind`; every size not given keeps its default.
    public init(
        kind: Kind, records: Int? = nil, changes: Int? = nil, entities: Int = 100_000,
        queries: Int = 2000, rate: Int = 100_000, seconds: Double = 5, runs: Int = 3,
        writers: Int = 64, syncedOperations: Int = 2000, directory: String = "logbook-bench",
        postgres: String? = nil
    ) {
        self.kind = kind
        self.records = records
        self.changes = changes
        self.entities = entities
        self.queries = queries
        self.rate = rate
        self.seconds = seconds
        self.runs = runs
        self.writers = writers
        self.syncedOperations = syncedOperations
        self.directory = directory
        self.postgres = postgres
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
                directory: directory, records: records ?? 100_000, changes: total, rate: rate,
                seconds: seconds, runs: runs, progress: progress
            ).run()
            return (
                figures,
                "shipping: catch-up of \(total) standard-workload changes over \(records ?? 100_000) records, median of \(runs); lag at \(rate) changes/s for \(seconds) s"
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
        case .hub:
            return try await hubFigures(progress: progress)
        case .chat:
            let messages = records ?? 100_000
            let figures = try await ChatBenchmark(
                directory: directory + "/chat", messages: messages, runs: runs,
                progress: progress
            ).run()
            return (
                figures,
                "chat: \(messages) messages (ChatWorkload) in the \(ChatBenchmark.configuration); median of \(runs) runs"
            )
        case .data:
            let messages = records ?? 100_000
            let figures = try await DataBenchmark(
                directory: directory + "/data", messages: messages, queries: queries, runs: runs,
                progress: progress
            ).run()
            return (
                figures,
                "data: \(messages) six-property messages over 500 conversations; median of \(runs) runs"
            )
        case .log, .replay:
            return (try await logFigures(progress: progress), logWorkload)
        }
    }

    /// The hub suite: the store's figures, then followers of one stream.
    private func hubFigures(
        progress: @escaping (String) -> Void
    ) async throws -> (figures: [BenchFigure], workload: String) {
        guard let postgres else {
            throw HubError.badDatabaseURL("the hub suite needs --postgres URL")
        }
        var database = try HubDatabase(url: postgres)
        // One connection per pusher, and a few for the rest.
        database.configuration.options.maximumConnections =
            (HubBenchmark.pusherCounts.max() ?? 1) + 4
        let total = changes ?? 200_000
        database.configuration.options.maximumConnections = max(
            database.configuration.options.maximumConnections, 24)
        var figures = try await HubBenchmark(
            database: database, changes: total, pushChanges: pushChanges, runs: runs,
            progress: progress
        ).run()
        let (followers, writers, seconds) = (followers, hubWriters, hubFollowSeconds)
        figures += try await database.withClient(logger: HubBenchmark.logger) { client in
            try await HubFollowBenchmark(
                store: HubStore(client: client, logger: HubBenchmark.logger),
                followers: followers, writers: writers, followSeconds: seconds,
                progress: progress
            ).run()
        }
        return (
            figures,
            "hub: \(total) changes per figure into one stream, pushes of \(pushChanges); median of \(runs) runs"
        )
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
