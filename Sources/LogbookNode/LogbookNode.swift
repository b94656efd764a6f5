import AsyncHTTPClient
import Foundation
import Logbook
import LogbookShipping
import Logging
import ServiceLifecycle

/// A serving Logbook node: the shipping server, one follower per peer, one link per hub
/// stream and the maintenance schedule, run as swift-service-lifecycle services in one group. What `logbook serve`
/// runs, in a library so it can be tested in-process.
///
/// The node owns the Logbook it is given: `run()` closes it (and its HTTP client) however
/// the group ends — a graceful shutdown (SIGTERM or SIGINT when `handlesSignals`, or
/// `shutdown()`), or a service failing (the port in use). A graceful shutdown stops the
/// followers first (their polls cancelled), then maintenance (a pass under way finishes),
/// then the server, which stops accepting, answers the requests in flight (long polls at
/// once) and ends; then the log is synced and closed.
public final class LogbookNode: Sendable {
    /// What the node runs.
    public struct Configuration: Sendable {
        /// How it serves (address, port, token, TLS, limits).
        public var shipping: ShippingConfiguration
        /// Peers to follow (base URLs), with `shipping.token`.
        public var peers: [String] = []
        /// Hub streams to push to and pull from, each with its own token.
        public var hubs: [HubTarget] = []
        /// The longest a follower's poll waits at a peer.
        public var followWait = Duration.milliseconds(500)
        /// A peer followed for the first time sends its state, in pages, and then the log
        /// from the offset that state covers (`ReplicationSession.Options`); false: its
        /// whole log from offset 0. Default true.
        public var bootstrapsFromState = true
        /// PEM certificates to trust for HTTPS peers (nil: the system's roots).
        public var trustedCertificates: String?
        /// GC and compaction.
        public var maintenance = MaintenanceSchedule()
        /// Stop gracefully on SIGTERM and SIGINT.
        public var handlesSignals = false
        /// How often each peer's lag is noted for the status page's chart (the last
        /// `PeerLagHistory.capacity` notes are drawn).
        public var lagSampleInterval = Duration.seconds(5)

        /// A configuration serving with `shipping` and nothing else.
        public init(shipping: ShippingConfiguration) { self.shipping = shipping }
    }

    let logbook: Logbook
    let ledger: PeerLedger
    let configuration: Configuration
    let logger: Logger
    /// Called with the port once the server listens.
    let onListening: @Sendable (Int) -> Void
    /// Called with the admin listener's port once it listens (`ShippingConfiguration.adminPort`).
    let onAdminListening: @Sendable (Int) -> Void
    private let group = GroupHandle()

    /// A node serving `logbook` (which it now owns) with `ledger`.
    public init(
        logbook: Logbook, ledger: PeerLedger, configuration: Configuration,
        logger: Logger = Logger(label: "logbook.node"),
        onAdminListening: @escaping @Sendable (Int) -> Void = { _ in },
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.logbook = logbook
        self.ledger = ledger
        self.configuration = configuration
        self.logger = logger
        self.onAdminListening = onAdminListening
        self.onListening = onListening
    }

    /// Runs until a graceful shutdown or a failure (rethrown), then closes the HTTP client
    /// and the Logbook. Throws when the TLS files cannot be read or the server cannot
    /// listen; every resource is closed then too.
    public func run() async throws {
        let client: HTTPClient
        do { client = try PeerClient.make(trusting: configuration.trustedCertificates) } catch {
            try? logbook.close()
            throw error
        }
        var failure: (any Error)?
        do {
            try await runServices(client: client)
        } catch {
            failure = error
        }
        do { try await client.shutdown() } catch { failure = failure ?? error }
        do { try logbook.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }

    /// Starts a graceful shutdown of a running node (nothing when it is not running).
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    private func runServices(client: HTTPClient) async throws {
        let listening = ListeningFlag()
        let port = configuration.shipping.port
        let onListening = onListening
        let shipping = ShippingServer(
            logbook: logbook, configuration: configuration.shipping, ledger: ledger)
        let server = try shipping.application { port in
            listening.set()
            onListening(port)
        }
        // Shut down in reverse order: followers, maintenance, then the servers.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: server, serviceName: "server")
        ]
        if configuration.shipping.adminPort != nil {
            services.append(
                .init(
                    service: shipping.adminApplication(onRunning: onAdminListening),
                    serviceName: "admin"))
        }
        services.append(
            .init(
                service: LagSamplerService(
                    server: shipping, interval: configuration.lagSampleInterval),
                serviceName: "lag sampler"))
        let hubLinks = try configuration.hubs.map { hub in
            try HubLink(
                logbook: logbook, hub: hub.url, stream: hub.stream, token: hub.token,
                ledger: ledger, client: client)
        }
        if configuration.maintenance.isScheduled {
            services.append(
                .init(
                    service: MaintenanceService(
                        logbook: logbook, ledger: ledger, schedule: configuration.maintenance,
                        hubLinks: hubLinks, logger: logger),
                    serviceName: "maintenance"))
        }
        for peer in configuration.peers {
            var peerLogger = logger
            peerLogger[metadataKey: "peer"] = "\(peer)"
            var puller = PeerPuller(
                logbook: logbook, peer: peer, token: configuration.shipping.token, ledger: ledger,
                client: client)
            puller.options.bootstrapsFromState = configuration.bootstrapsFromState
            services.append(
                .init(
                    service: FollowerService(
                        puller: puller, wait: configuration.followWait, logger: peerLogger),
                    serviceName: "follower \(peer)"))
        }
        for link in hubLinks {
            var hubLogger = logger
            hubLogger[metadataKey: "hub"] = "\(link.peerName)"
            services.append(
                .init(
                    service: HubLinkService(
                        link: link, wait: configuration.followWait, logger: hubLogger),
                    serviceName: "hub \(link.peerName)"))
        }
        let serviceGroup = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: configuration.handlesSignals ? [.sigterm, .sigint] : [],
                logger: logger))
        await group.set(serviceGroup)
        var failure: (any Error)?
        do { try await serviceGroup.run() } catch { failure = error }
        await group.set(nil)
        guard let failure else { return }
        // The server's own error when it never listened says little ("Address already in
        // use" at best): name the port.
        throw listening.isSet ? failure : ServerStartError(port: port, cause: failure)
    }
}

/// The node's server never listened: `ServerStartError`, with the server's own error.
public typealias NodeStartError = ServerStartError

/// The running group, for `shutdown()`.
private actor GroupHandle {
    private var group: ServiceGroup?
    private var shutdownRequested = false

    func set(_ group: ServiceGroup?) async {
        self.group = group
        if let group, shutdownRequested { await group.triggerGracefulShutdown() }
    }

    func triggerGracefulShutdown() async {
        shutdownRequested = true
        await group?.triggerGracefulShutdown()
    }
}

/// Set once the server listens.
private final class ListeningFlag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
