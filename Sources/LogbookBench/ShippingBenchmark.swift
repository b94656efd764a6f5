import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookWorkloads

/// `logbook bench shipping`: two nodes on loopback in this process. Catch-up: a new node
/// takes node 1's state (the standard workload's log), and another pulls its whole history;
/// the log's stored bytes per second of each are timed.
/// Lag: writers on node 1 append four-field writes at a paced rate while
/// node 2 pulls continuously; each change's lag is the time from its write returning
/// (durable, group commit) to node 2 having merged it durably and moved its cursor past it.
struct ShippingBenchmark {
    var directory: String
    /// Records of the catch-up log's workload.
    var records: Int
    var changes: Int
    var rate: Int
    var seconds: Double
    var runs: Int
    var progress: (String) -> Void

    func run() async throws -> [BenchFigure] {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await catchUp() + [try await lag()]
    }

    private struct Node {
        let logbook: Logbook
        let ledger: PeerLedger
        let url: String
        let server: RunningServer
    }

    /// A node serving on loopback; `followers` are registered as its peers (a node refuses
    /// acknowledgements from any other).
    private func start(
        _ path: String, node: NodeId, durability: Durability, followers: [NodeId]
    ) async throws -> Node {
        var options = LogbookOptions()
        options.durability = durability
        let logbook = try Logbook.open(directory: path, nodeId: node, options: options)
        let ledger = try PeerLedger(directory: path)
        for follower in followers { try ledger.register(follower) }
        let server = try await ShippingServer(
            logbook: logbook, configuration: ShippingConfiguration(token: "bench"), ledger: ledger
        ).start()
        return Node(logbook: logbook, ledger: ledger, url: server.url(), server: server)
    }

    /// Catch-up of the whole log into an empty node, from the source's state (what a new
    /// node does) and, side by side, from its history; then, to show that a catch-up costs
    /// what is missing and not the size of the state, the same number of new changes pulled
    /// by a node holding the whole state and by one holding almost nothing.
    private func catchUp() async throws -> [BenchFigure] {
        progress("writing the catch-up log")
        let source = try await start(
            directory + "/source", node: 1, durability: .buffered, followers: [2, 3])
        defer { source.server.stop() }
        var workload = StandardWorkload(recordCount: records, seed: 42)
        _ = try await runStandardWorkload(
            on: source.logbook, workload: &workload, changeCount: changes)
        try source.logbook.sync()
        let history = try await timedCatchUp(from: source, bootstrapping: false)
        let state = try await timedCatchUp(from: source, bootstrapping: true)
        // A pull of the whole history ships every stored byte of the log once.
        let logBytes = Double(history.report.bytes)
        let fromHistory = BenchFigure(
            system: "Logbook",
            name: "catch-up from the peer's history over loopback (pull, check, merge, append)",
            kind: "replay", changesPerSecond: Double(history.report.received) / history.seconds,
            diskMegabytesPerSecond: logBytes / history.seconds / 1e6, peakMegabytes: history.peak,
            note: String(
                format: "%.1f MB stored, %d changes in %.2f s",
                logBytes / 1e6, history.report.received, history.seconds))
        let fromState = BenchFigure(
            system: "Logbook",
            name: "catch-up of a new node from the peer's state over loopback (binary pages)",
            kind: "replay", changesPerSecond: Double(history.report.received) / state.seconds,
            diskMegabytesPerSecond: logBytes / state.seconds / 1e6, peakMegabytes: state.peak,
            note: String(
                format:
                    "the %.1f MB log (%d changes) as %d state changes in %.2f s, %.1f× the pull of its history; MB/s and changes/s count the log covered (target 300 MB/s)",
                logBytes / 1e6, history.report.received, state.report.received, state.seconds,
                history.seconds / max(state.seconds, 1e-9)))
        return [
            fromState, fromHistory, try await incrementalCatchUp(from: source, workload: &workload),
        ]
    }

    /// The median time of `runs` catch-ups of `source` into new, empty nodes, taking its
    /// state first or not, with the last catch-up's report.
    private func timedCatchUp(from source: Node, bootstrapping: Bool) async throws -> (
        seconds: Double, peak: Double?, report: ReplicationReport
    ) {
        var report = ReplicationReport()
        let (median, peak) = try await measure(runs: runs) {
            progress(bootstrapping ? "catch-up from the state" : "catch-up from the history")
            let path = directory + "/copy-\(UUID().uuidString.prefix(6))"
            let receiver = try Logbook.open(directory: path, nodeId: 2, options: LogbookOptions())
            let ledger = try PeerLedger(directory: path)
            var puller = PeerPuller(
                logbook: receiver, peer: source.url, token: "bench", ledger: ledger)
            puller.options.bootstrapsFromState = bootstrapping
            let started = ContinuousClock.now
            report = try await puller.catchUp()
            let elapsed = (ContinuousClock.now - started).seconds
            try receiver.close()
            try? FileManager.default.removeItem(atPath: path)
            return elapsed
        }
        return (median, peak, report)
    }

    /// `missing` new changes on the source, pulled by a node that already holds the source's
    /// whole state and, side by side, by a node that holds only what a small source wrote.
    private func incrementalCatchUp(
        from source: Node, workload: inout StandardWorkload
    ) async throws -> BenchFigure {
        let missing = max(1, changes / 100)
        progress("catch-up of \(missing) missing changes")
        let full = try Logbook.open(
            directory: directory + "/full", nodeId: 3, options: LogbookOptions())
        let fullLedger = try PeerLedger(directory: directory + "/full")
        _ = try await PeerPuller(
            logbook: full, peer: source.url, token: "bench", ledger: fullLedger
        ).catchUp()
        let small = try await start(
            directory + "/small-source", node: 4, durability: .buffered, followers: [5])
        defer { small.server.stop() }
        var smallWorkload = StandardWorkload(recordCount: 1_000, seed: 7)
        _ = try await runStandardWorkload(
            on: small.logbook, workload: &smallWorkload, changeCount: missing)
        let empty = try Logbook.open(
            directory: directory + "/empty", nodeId: 5, options: LogbookOptions())
        let emptyLedger = try PeerLedger(directory: directory + "/empty")
        _ = try await runStandardWorkload(
            on: source.logbook, workload: &workload, changeCount: missing)
        try source.logbook.sync()
        try small.logbook.sync()
        // Both pull `missing` changes: one into a state of `changes`, one into an empty one.
        let timed = { (node: Logbook, ledger: PeerLedger, peer: String) async throws -> Double in
            var puller = PeerPuller(logbook: node, peer: peer, token: "bench", ledger: ledger)
            // The empty node pulls the same number of changes, not the small source's state.
            puller.options.bootstrapsFromState = false
            let started = ContinuousClock.now
            _ = try await puller.catchUp()
            return (ContinuousClock.now - started).seconds
        }
        let intoFull = try await timed(full, fullLedger, source.url)
        let intoEmpty = try await timed(empty, emptyLedger, small.url)
        let fullRecords = full.records().count
        try full.close()
        try empty.close()
        return BenchFigure(
            system: "Logbook", name: "catch-up of \(missing) missing changes, state of \(changes)",
            changesPerSecond: Double(missing) / intoFull,
            note: String(
                format:
                    "%.3f s into a node holding %d records; %.3f s for as many changes into an empty node (%.2f×): the cost follows what is missing",
                intoFull, fullRecords, intoEmpty, intoFull / max(intoEmpty, 1e-9)))
    }

    private func lag() async throws -> BenchFigure {
        progress("replication lag")
        let writer = try await start(
            directory + "/writer", node: 1, durability: .groupCommit, followers: [2])
        let reader = try await start(
            directory + "/reader", node: 2, durability: .buffered, followers: [])
        defer {
            writer.server.stop()
            reader.server.stop()
        }
        let log = WriteTimes()
        let puller = PeerPuller(
            logbook: reader.logbook, peer: writer.url, token: "bench", ledger: reader.ledger)
        let pulling = Task {
            await puller.run { outcome in
                if case .success(let report) = outcome { log.reached(report.cursor) }
            }
        }
        // Each write sets four fields (four changes, as the standard workload's record
        // writes) and waits until it is durable (group commit) before the writer's next one,
        // so a writer manages about one write per fsync: enough writers for the rate at
        // 2.5 ms per write.
        let fieldsPerWrite = 4
        let writesPerSecond = max(1, rate / fieldsPerWrite)
        let writers = max(64, writesPerSecond / 400)
        let perWriter = Int(Double(writesPerSecond) * seconds) / writers
        let interval = Duration.seconds(Double(writers) / Double(writesPerSecond))
        let writingStarted = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<writers {
                group.addTask {
                    var next = ContinuousClock.now
                    for index in 0..<perWriter {
                        _ = try await writer.logbook.insertOrUpdate(
                            "entity/w\(number)-\(index % 1000)",
                            fields: (0..<fieldsPerWrite).map { ("f\($0)", .int(Int64(index))) })
                        log.wrote(writer.logbook.nextOffset)
                        next += interval
                        try await Task.sleep(until: next, clock: .continuous)
                    }
                }
            }
            try await group.waitForAll()
        }
        let writing = (ContinuousClock.now - writingStarted).seconds
        let deadline = ContinuousClock.now + .seconds(5)
        while !log.allReached, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        pulling.cancel()
        let recorder = log.latencies()
        let written = perWriter * writers * fieldsPerWrite
        return BenchFigure(
            system: "Logbook", name: "replication lag, writer at \(rate) changes/s target",
            kind: nil, changesPerSecond: Double(written) / writing, latency: recorder.percentiles(),
            note:
                "\(written) changes (\(fieldsPerWrite) per write) by \(writers) writers in \(String(format: "%.2f", writing)) s (the rate achieved); lag from the write returning (durable) to the peer's cursor passing it; target p99 < 50 ms"
        )
    }
}

/// When each write returned and when the reader's cursor first passed it.
final class WriteTimes: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var pending: [(offset: UInt64, at: ContinuousClock.Instant)] = []
    private var recorder = LatencyRecorder()

    func wrote(_ endOffset: UInt64) {
        lock.lock()
        pending.append((endOffset, .now))
        lock.unlock()
    }

    func reached(_ cursor: UInt64) {
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        pending.removeAll { entry in
            guard entry.offset <= cursor else { return false }
            recorder.record(now - entry.at)
            return true
        }
    }

    var allReached: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pending.isEmpty
    }

    func latencies() -> LatencyRecorder {
        lock.lock()
        defer { lock.unlock() }
        return recorder
    }
}
