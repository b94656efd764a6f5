import ArgumentParser
import Foundation
import Logbook
import LogbookNode
import LogbookShipping
import Logging

/// `logbook serve DIR --port P --token-file F [--peer URL ...]`: a node that serves its log and
/// pulls from its peers until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve this Logbook to peers over HTTP and pull from peers continuously.",
        discussion: """
            Endpoints (every request needs Authorization: Bearer TOKEN): GET /log?from=OFFSET \
            (stored batches verbatim, below the durable high watermark), GET /snapshot, POST /ack, \
            GET /changes?since=V and POST /changes (crdt-lite JSON), GET / (status page), GET \
            /status (offsets and state digest, JSON), GET /metrics (Prometheus: appends, syncs, \
            group commits, compaction and GC times, per-peer lag and errors, requests). With \
            --admin-port, the status page (which reloads itself and draws each peer's lag over the \
            last ten minutes), /status and /metrics are also served there without a token, on \
            --admin-host (loopback by default), for a browser or a scraper. Each --peer is \
            followed from its saved cursor (peers.json beside the log; a new peer first sends its \
            state, in pages, unless --history) with long polls (GET /log?wait_ms=--interval): the \
            peer answers as soon as it has new durable records, and the next poll is sent while \
            this node merges the last answer. Failures back off up to 5 s. Writes are \
            group-committed, so what is served is durable. With --hub and --stream the node also \
            pushes its durable log to that hub stream (never what it pulled from it) and \
            long-polls the stream's changes, with --hub-token-file's token. With --gc-every, \
            tombstone GC runs that often (see `logbook gc --help` and `logbook peers`; with --hub \
            it collects what the hub lists); with --compact-every, compaction is checked that \
            often (a check reads the log: none while nothing was appended, and each waits \
            nine times the last one's length) and runs when the dirty ratio reaches 0.5. SIGTERM or SIGINT stops the node \
            gracefully (followers, then maintenance, then the server, answering long polls at \
            once; the log is synced and closed) with exit 0. Lines go to standard output through \
            swift-log (--log-level).
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 7000
    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"
    @Option(help: "Serve the status page and /metrics without a token on this port (0: any).")
    var adminPort: Int?
    @Option(help: "The admin listener's address (it asks for no token: keep it private).")
    var adminHost = "127.0.0.1"
    /// The bearer token peers must send (and that this node sends to --peer).
    @OptionGroup var tokenOptions: TokenOptions
    @OptionGroup var connections: ConnectionOptions
    @Option(help: "A peer to pull from, e.g. http://127.0.0.1:7001 (repeatable).")
    var peer: [String] = []
    @Option(help: "A hub to push to and pull from (`logbook hub serve`); with --stream.")
    var hub: String?
    @Option(help: "The hub stream to sync with.")
    var stream: String?
    @Option(help: "A file holding the hub's token for --stream (default: this node's token).")
    var hubTokenFile: String?
    @Option(help: "The longest a poll waits at a peer for new records, in milliseconds.")
    var interval = 500
    @Flag(help: "A peer followed for the first time sends its whole log, not its state.")
    var history = false
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
        if let adminPort, !(0...65535).contains(adminPort) {
            throw ValidationError("--admin-port must be 0...65535")
        }
        guard (gcEvery ?? 1) > 0, (compactEvery ?? 1) > 0 else {
            throw ValidationError("--gc-every and --compact-every must be positive")
        }
        guard gcRetention >= 0 else { throw ValidationError("--gc-retention must not be negative") }
        guard (hub == nil) == (stream == nil) else {
            throw ValidationError("--hub and --stream go together")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together")
        }
    }

    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let token = try tokenOptions.resolve()
        bootstrapLogging(level: logLevel)
        // Before the open: the engine makes its metrics against the bootstrapped backend.
        let registry = LogbookNode.bootstrapMetrics()
        let logbook = try openLogbook(target.directory, durability: .groupCommit)
        let ledger: PeerLedger
        do { ledger = try PeerLedger(directory: target.directory) } catch {
            try? logbook.close()
            throw exitWithError(error)
        }
        var shipping = ShippingConfiguration(token: token)
        shipping.host = host
        shipping.port = port
        shipping.metricsRegistry = registry
        shipping.adminPort = adminPort
        shipping.adminHost = adminHost
        shipping.connections = connections.applied(to: shipping.connections)
        if let tlsCertificate, let tlsKey {
            shipping.tls = .init(certificateChain: tlsCertificate, privateKey: tlsKey)
        }
        var configuration = LogbookNode.Configuration(shipping: shipping)
        configuration.peers = peer
        if let hub, let stream {
            let hubToken = try hubTokenFile.map {
                try TokenOptions.read($0, option: "--hub-token-file")
            }
            configuration.hubs = [HubTarget(url: hub, stream: stream, token: hubToken ?? token)]
        }
        configuration.followWait = .milliseconds(interval)
        configuration.bootstrapsFromState = !history
        configuration.trustedCertificates = ca
        configuration.maintenance.gcEvery = gcEvery.map { .seconds($0) }
        configuration.maintenance.compactEvery = compactEvery.map { .seconds($0) }
        configuration.maintenance.gcOptions.retentionSeconds = gcRetention
        configuration.handlesSignals = true
        // A failed write (a full disk) heals in place (docs/shipping.md#health-and-healing).
        configuration.reopenAfterWriteFailure = LogbookNode.reopening(
            target.directory, durability: .groupCommit)
        let (scheme, host, directory) = (
            shipping.tls == nil ? "http" : "https", host, target.directory
        )
        let logger = Logger(label: "logbook.node")
        let node = LogbookNode(
            logbook: logbook, ledger: ledger, configuration: configuration, logger: logger,
            onAdminListening: { [adminHost] port in
                logger.info("status page and metrics, no token: http://\(adminHost):\(port)/")
            }
        ) { port in
            logger.info(
                "node \(logbook.nodeId) serving \(directory) on \(scheme)://\(host):\(port)")
        }
        do { try await node.run() } catch { throw exitWithError(error) }
        logger.info("stopped; the log is closed")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
