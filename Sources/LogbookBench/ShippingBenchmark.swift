import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookWorkloads

/// `logbook bench shipping`: two nodes on loopback in this process. Catch-up: node 2 pulls
/// node 1's whole log (the standard workload) and the stored bytes per second are timed.
/// Lag: writers on node 1 append four-field writes at a paced rate while
/// node 2 pulls continuously; each change's lag is the time from its write returning
/// (durable, group commit) to node 2 having merged it durably and moved its cursor past it.
struct ShippingBenchmark {
    var directory: String
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

    private func start(_ path: String, node: NodeId, durability: Durability) async throws -> Node {
        var options = LogbookOptions()
        options.durability = durability
        let logbook = try Logbook.open(directory: path, nodeId: node, options: options)
        let ledger = try PeerLedger(directory: path)
        let server = try await ShippingServer(
            logbook: logbook, configuration: ShippingConfiguration(token: "bench"), ledger: ledger
        ).start()
        return Node(logbook: logbook, ledger: ledger, url: server.url(), server: server)
    }

    /// Catch-up of the whole log into an empty node; then, to show that a catch-up costs what
    /// is missing and not the size of the state, the same number of new changes pulled by a
    /// node holding the whole state and by one holding almost nothing.
    private func catchUp() async throws -> [BenchFigure] {
        progress("writing the catch-up log")
        let source = try await start(directory + "/source", node: 1, durability: .buffered)
        defer { source.server.stop() }
        var workload = StandardWorkload(recordCount: 100_000, seed: 42)
        _ = try await runStandardWorkload(
            on: source.logbook, workload: &workload, changeCount: changes)
        try source.logbook.sync()
        var bytes = 0
        var merged = 0
        let (median, peak) = try await measure(runs: runs) {
            progress("catch-up")
            let path = directory + "/copy-\(UUID().uuidString.prefix(6))"
            let receiver = try Logbook.open(directory: path, nodeId: 2, options: LogbookOptions())
            let ledger = try PeerLedger(directory: path)
            let started = ContinuousClock.now
            let report = try await PeerPuller(
                logbook: receiver, peer: source.url, token: "bench", ledger: ledger
            ).catchUp()
            let elapsed = (ContinuousClock.now - started).seconds
            bytes = report.bytes
            merged = report.received
            try receiver.close()
            try? FileManager.default.removeItem(atPath: path)
            return elapsed
        }
        let whole = BenchFigure(
            system: "Logbook", name: "catch-up over loopback (pull, check, merge, append)",
            kind: "replay", changesPerSecond: Double(merged) / median,
            diskMegabytesPerSecond: Double(bytes) / median / 1e6, peakMegabytes: peak,
            note: String(
                format: "%.1f MB stored, %d changes in %.2f s (target 300 MB/s of stored bytes)",
                Double(bytes) / 1e6, merged, median))
        return [whole, try await incrementalCatchUp(from: source, workload: &workload)]
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
        let small = try await start(directory + "/small-source", node: 4, durability: .buffered)
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
            let started = ContinuousClock.now
            _ = try await PeerPuller(logbook: node, peer: peer, token: "bench", ledger: ledger)
                .catchUp()
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
        let writer = try await start(directory + "/writer", node: 1, durability: .groupCommit)
        let reader = try await start(directory + "/reader", node: 2, durability: .buffered)
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
