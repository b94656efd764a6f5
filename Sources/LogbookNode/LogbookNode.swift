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
        /// Opens the node's Logbook again after a write failed (a full disk, an I/O error):
        /// the node then stops serving, closes the failed instance, waits, reopens with
        /// this (retrying while it throws) and serves again, so it heals once the disk
        /// allows. Nothing acknowledged is lost: a write is acknowledged once durable, and
        /// the reopened log recovers everything durable. Nil: a failed node keeps serving
        /// reads and answers writes and `/readyz` with the failure until it is restarted.
        public var reopenAfterWriteFailure: (@Sendable () throws -> Logbook)?
        /// The first wait before reopening (`RetryDelay`): it doubles, with jitter, up to
        /// `healingDelayMax` while failures follow one another within that long of serving.
        public var healingDelayMin = Duration.milliseconds(500)
        /// The longest wait before reopening.
        public var healingDelayMax = Duration.seconds(30)

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
    /// The port the server first listened on.
    private let boundPort = BoundPort()

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
    /// listen; every resource is closed then too. With `reopenAfterWriteFailure`, a failed
    /// write is healed in place instead (`Configuration`).
    public func run() async throws {
        if let ignored = ledger.ignoredFile { logger.warning("\(ignored)") }
        let client: HTTPClient
        do { client = try PeerClient.make(trusting: configuration.trustedCertificates) } catch {
            try? logbook.close()
            throw error
        }
        var current: Logbook? = logbook
        var failure: (any Error)?
        var healing = RetryDelay(
            min: configuration.healingDelayMin, max: configuration.healingDelayMax)
        while let serving = current {
            let started = ContinuousClock.now
            do {
                try await runServices(logbook: serving, client: client)
                break
            } catch let stop as WriteFailureStop {
                guard let reopen = configuration.reopenAfterWriteFailure else {
                    failure = stop
                    break
                }
                // A node that served a while since its last healing starts over from `min`.
                if ContinuousClock.now - started >= healing.max { healing.reset() }
                logger.error(
                    "a write failed; closing the log to reopen it",
                    metadata: ["cause": "\(stop.failure)"])
                do { try serving.close() } catch {
                    logger.warning("closing the failed log: \(error)")
                }
                current = await reopened(with: reopen, healing: &healing)
                if let reopened = current {
                    logger.notice(
                        "reopened the log; serving again",
                        metadata: ["recovery": "\(reopened.recovery)"])
                }
                continue
            } catch {
                failure = error
                break
            }
        }
        do { try await client.shutdown() } catch { failure = failure ?? error }
        if let current {
            do { try current.close() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// A `reopenAfterWriteFailure` for a node serving `directory` with `durability` and
    /// otherwise the default options (what `logbook serve` sets).
    public static func reopening(_ directory: String, durability: Durability)
        -> @Sendable () throws -> Logbook
    {
        var options = LogbookOptions()
        options.durability = durability
        return { [options] in try Logbook.open(directory: directory, options: options) }
    }

    /// The Logbook opened again after `healing`'s delay, retried while it throws; nil when a
    /// shutdown is asked for meanwhile.
    private func reopened(
        with reopen: @Sendable () throws -> Logbook, healing: inout RetryDelay
    ) async -> Logbook? {
        while true {
            let delay = healing.next()
            logger.info("reopening the log in \(delay)")
            try? await Task.sleep(for: delay)
            if await group.isShutdownRequested || Task.isCancelled { return nil }
            do { return try reopen() } catch {
                logger.error("reopening the log failed; retrying", metadata: ["cause": "\(error)"])
            }
        }
    }

    /// Starts a graceful shutdown of a running node (nothing when it is not running).
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    private func runServices(logbook: Logbook, client: HTTPClient) async throws {
        let listening = ListeningFlag()
        // A node that reopens its log after a failure comes back on the port it had, even
        // when it was given 0 (any free one).
        var shippingConfiguration = configuration.shipping
        if let bound = boundPort.value { shippingConfiguration.port = bound }
        let port = shippingConfiguration.port
        let (onListening, boundPort) = (onListening, boundPort)
        let shipping = ShippingServer(
            logbook: logbook, configuration: shippingConfiguration, ledger: ledger)
        let server = try shipping.application { port in
            listening.set()
            boundPort.set(port)
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
        if configuration.reopenAfterWriteFailure != nil {
            services.append(
                .init(
                    service: WriteFailureWatch(logbook: logbook, interval: .milliseconds(100)),
                    failureTerminationBehavior: .gracefullyShutdownGroup,
                    serviceName: "write failure watch"))
        }
        services += try replicationServices(logbook: logbook, client: client)
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

    /// Maintenance, one follower per peer and one link per hub stream, over `logbook`.
    private func replicationServices(logbook: Logbook, client: HTTPClient) throws
        -> [ServiceGroupConfiguration.ServiceConfiguration]
    {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
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
        return services
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

    var isShutdownRequested: Bool { shutdownRequested }
}

/// The port the node's server listens on, once it has.
private final class BoundPort: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var port: Int?
    var value: Int? { lock.withLock { port } }
    func set(_ port: Int) { lock.withLock { self.port = port } }
}

/// Set once the server listens.
private final class ListeningFlag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
