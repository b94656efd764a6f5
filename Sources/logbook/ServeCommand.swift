import ArgumentParser
import Foundation
import Logbook
import LogbookShipping

/// `logbook serve DIR --port P --token-file F [--peer URL ...]`: a node that serves its log and
/// pulls from its peers until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve this Logbook to peers over HTTP and pull from peers continuously.",
        discussion: """
            Endpoints (every request needs Authorization: Bearer TOKEN): GET /log?from=OFFSET \
            (stored batches verbatim, below the durable high watermark), GET /snapshot, POST \
            /ack, GET /changes?since=V and POST /changes (crdt-lite JSON), GET / (status \
            page), GET /metrics (Prometheus). Each --peer is followed from its saved cursor \
            (peers.json beside the log) with long polls (GET /log?wait_ms=--interval): the \
            peer answers as soon as it has new durable records, and the next poll is sent \
            while this node merges the last answer. Failures back off up to 5 s. Writes are group-committed, so what is served is durable. \
            With --gc-every, tombstone GC runs that often (see `logbook gc --help` and \
            `logbook peers`: it waits for every registered peer); with --compact-every, \
            compaction is checked that often and runs when the dirty ratio reaches 0.5.
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 7000
    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"
    /// The bearer token peers must send (and that this node sends to --peer).
    @OptionGroup var tokenOptions: TokenOptions
    @Option(help: "A peer to pull from, e.g. http://127.0.0.1:7001 (repeatable).")
    var peer: [String] = []
    @Option(help: "The longest a poll waits at a peer for new records, in milliseconds.")
    var interval = 500
    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key).")
    var tlsCertificate: String?
    @Option(help: "The PEM private key for --tls-certificate.")
    var tlsKey: String?
    @Option(help: "Trust HTTPS peers whose certificates this PEM file holds (or signed).")
    var ca: String?
    @Option(help: "Run tombstone GC every this many seconds (default: never).")
    var gcEvery: Double?
    @Option(help: "GC collects tombstones at least this many seconds old.")
    var gcRetention: Double = 86_400
    @Option(
        help: """
            Check every this many seconds whether to compact (default: never): each check \
            reads the log once and rewrites the sealed segments when at least half of their \
            records are superseded.
            """)
    var compactEvery: Double?

    func validate() throws {
        _ = try tokenOptions.resolve()
        guard (0...65535).contains(port), interval > 0 else {
            throw ValidationError("--port must be 0...65535 and --interval positive")
        }
        if let gcEvery, gcEvery <= 0 { throw ValidationError("--gc-every must be positive") }
        if let compactEvery, compactEvery <= 0 {
            throw ValidationError("--compact-every must be positive")
        }
        guard gcRetention >= 0 else { throw ValidationError("--gc-retention must not be negative") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together")
        }
    }

    func run() async throws {
        let token = try tokenOptions.resolve()
        let logbook = try openLogbook(target.directory, durability: .groupCommit)
        let ledger: PeerLedger
        do { ledger = try PeerLedger(directory: target.directory) } catch {
            throw exitWithError(error)
        }
        var configuration = ShippingConfiguration(token: token)
        configuration.host = host
        configuration.port = port
        if let tlsCertificate, let tlsKey {
            configuration.tls = .init(certificateChain: tlsCertificate, privateKey: tlsKey)
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        let client = try PeerClient.make(trusting: ca)
        let application = try ShippingServer(
            logbook: logbook, configuration: configuration, ledger: ledger
        ).application { port in
            printNow(
                "node \(logbook.nodeId) serving \(target.directory) on \(scheme)://\(host):\(port)")
        }
        let peers = peer
        let interval = interval
        let maintenance = Maintenance(
            gcEvery: gcEvery, compactEvery: compactEvery,
            gcOptions: {
                var options = TombstoneCollectionOptions()
                options.retentionSeconds = gcRetention
                return options
            }())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.runService() }
            if maintenance.isScheduled {
                group.addTask { try await maintenance.run(logbook, peers: ledger) }
            }
            for url in peers {
                group.addTask {
                    let puller = PeerPuller(
                        logbook: logbook, peer: url, token: token, ledger: ledger, client: client)
                    let pulled = PullSummary()
                    await puller.run(interval: .milliseconds(interval)) { outcome in
                        switch outcome {
                        case .success(let report):
                            // A follower pulls many times a second under load: one line per
                            // second at most, with what the pulls since the last line brought.
                            if let line = pulled.add(report) {
                                printNow(
                                    "pulled \(line.received) changes from \(url), accepted \(line.accepted); cursor \(line.cursor)"
                                )
                            }
                        case .failure(let error):
                            var standardError = StandardError()
                            print("pull from \(url) failed: \(error); retrying", to: &standardError)
                        }
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
        try await client.shutdown()
        try logbook.close()
    }
}

/// A serving node's maintenance: tombstone GC every `gcEvery` seconds and a compaction check
/// every `compactEvery`, one after the other in one task (a Logbook runs one maintenance pass
/// at a time), until cancelled. Prints what each pass removed, and once why GC is blocked.
private struct Maintenance: Sendable {
    var gcEvery: Double?
    var compactEvery: Double?
    var gcOptions: TombstoneCollectionOptions

    var isScheduled: Bool { gcEvery != nil || compactEvery != nil }

    func run(_ logbook: Logbook, peers: PeerLedger) async throws {
        let start = ContinuousClock.now
        var nextGC = gcEvery.map { start + .seconds($0) }
        var nextCompaction = compactEvery.map { start + .seconds($0) }
        var lastBlock: String?
        while !Task.isCancelled {
            guard let due = [nextGC, nextCompaction].compactMap({ $0 }).min() else { return }
            try await Task.sleep(until: due, clock: .continuous)
            if let next = nextGC, next <= .now, let gcEvery {
                lastBlock = collect(logbook, peers: peers, lastBlock: lastBlock)
                nextGC = next + .seconds(gcEvery)
            }
            if let next = nextCompaction, next <= .now, let compactEvery {
                compact(logbook)
                nextCompaction = next + .seconds(compactEvery)
            }
        }
    }

    /// One GC run; returns why it is blocked, printed when it changed.
    private func collect(_ logbook: Logbook, peers: PeerLedger, lastBlock: String?) -> String? {
        do {
            let report = try logbook.collectTombstones(peers: peers, gcOptions)
            if report.collected > 0 || report.unfenced > 0 {
                printNow(
                    "gc: collected \(report.collected) tombstones (\(report.recordsRemoved) records), unfenced \(report.unfenced); history starts at \(report.historyStart)"
                )
            }
            if let reason = report.blockedBecause, reason != lastBlock {
                printNow("gc: blocked: \(reason)")
            }
            return report.blockedBecause
        } catch {
            var standardError = StandardError()
            print("gc failed: \(error); retrying", to: &standardError)
            return lastBlock
        }
    }

    /// One compaction check (default dirty-ratio threshold, 0.5).
    private func compact(_ logbook: Logbook) {
        do {
            let report = try logbook.compact(CompactionOptions())
            if report.didRewrite {
                printNow(
                    "compact: \(report.recordsBefore) -> \(report.recordsAfter) records, \(formatBytes(report.bytesBefore)) -> \(formatBytes(report.bytesAfter)) in \(String(format: "%.2f", report.seconds)) s"
                )
            }
        } catch {
            var standardError = StandardError()
            print("compaction failed: \(error); retrying", to: &standardError)
        }
    }
}

/// Writes a line to standard output at once (a server's log is read while it runs).
func printNow(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Sums a follower's pulls and hands out a line's worth at most once a second, or when the
/// peer goes quiet (and only when something was accepted).
final class PullSummary: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var received = 0
    private var accepted = 0
    private var printed = ContinuousClock.now - .seconds(1)

    func add(_ report: PeerPuller.Report) -> (received: Int, accepted: Int, cursor: UInt64)? {
        lock.withLock {
            received += report.received
            accepted += report.accepted
            // A quiet poll (pulls 0) flushes what is left, so the last pulls get their line.
            let due = ContinuousClock.now - printed >= .seconds(1) || report.pulls == 0
            guard accepted > 0, due else { return nil }
            defer {
                received = 0
                accepted = 0
                printed = .now
            }
            return (received, accepted, report.cursor)
        }
    }
}
