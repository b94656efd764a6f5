import Benchmark
import Foundation
import Logbook
import LogbookShipping

/// Catch-up over loopback: node 1 serves the workload's log (`BenchmarkWorkload.writtenLog`)
/// over HTTP in this process, and each iteration pulls all of it into a new, empty node,
/// from the peer's state (binary state pages, what a new node does by default) or from its
/// whole history: what `logbook bench shipping` measures on 1 M changes, here on the
/// package's 200,000. Besides the time, a custom metric gives the log's stored megabytes
/// covered per second (the catch-up target counts those), so the two compare.
func shippingBenchmarks(_ workload: BenchmarkWorkload) {
    let storedRate = BenchmarkMetric.custom(
        "stored MB/s covered", polarity: .prefersLarger, useScalingFactor: false)
    for fromState in [true, false] {
        let name = fromState ? "state" : "history"
        Benchmark(
            "catch-up-from-\(name)-over-loopback-\(workload.changes.count)-changes",
            configuration: .init(
                metrics: [.wallClock, ResidentGrowth.metric, storedRate], maxIterations: 10,
                thresholds: [
                    .wallClock: .init(relative: [.p90: 50]),
                    // The received state's growth moved 39-63 MB (history) between runs.
                    ResidentGrowth.metric: .init(relative: [.p90: 50]),
                    storedRate: .init(relative: [.p90: 50]),
                ])
        ) { benchmark in
            let source = try await CatchUpSource.start(
                serving: try await workload.writtenLogAsync())
            for _ in benchmark.scaledIterations {
                let path = ScratchDirectory.fresh("catch-up-receiver")
                let receiver = try Logbook.open(directory: path, nodeId: 2)
                var puller = PeerPuller(
                    logbook: receiver, peer: source.url, token: CatchUpSource.token,
                    ledger: try PeerLedger(directory: path))
                puller.options.bootstrapsFromState = fromState
                let started = ContinuousClock.now
                let report = try await ResidentGrowth.measure(benchmark) {
                    try await puller.catchUp()
                }
                let elapsed = ContinuousClock.now - started
                try receiver.close()
                guard report.cursor == source.logEnd else {
                    throw CatchUpSource.Failure.incomplete(
                        cursor: report.cursor, logEnd: source.logEnd)
                }
                let seconds = elapsed.secondsValue
                benchmark.measurement(storedRate, Int(Double(source.storedBytes) / seconds / 1e6))
            }
            await source.server.stopAndWait()
            try source.logbook.close()
        }
    }
}

/// The serving side of the catch-up suites: the log open as node 1, its shipping server on
/// a free loopback port, node 2 (every receiver) registered as its follower.
struct CatchUpSource {
    static let token = "benchmarks"

    enum Failure: Error {
        /// A catch-up stopped before the source's log end.
        case incomplete(cursor: UInt64, logEnd: UInt64)
    }

    let logbook: Logbook
    let server: RunningServer
    let url: String
    /// The log's end and stored bytes, which every catch-up covers.
    let logEnd: UInt64
    let storedBytes: Int64

    static func start(serving directory: String) async throws -> CatchUpSource {
        var options = LogbookOptions()
        options.durability = .buffered
        let logbook = try Logbook.open(directory: directory, options: options)
        let ledger = try PeerLedger(directory: directory)
        try ledger.register(2)
        let server = try await ShippingServer(
            logbook: logbook, configuration: ShippingConfiguration(token: token), ledger: ledger
        ).start()
        return CatchUpSource(
            logbook: logbook, server: server, url: server.url(), logEnd: logbook.nextOffset,
            storedBytes: logbook.sizeBytes)
    }
}
