import Hummingbird
import Logging
import ServiceLifecycle

/// A shipping server running in its own task, with the port it listens on.
///
/// It stops by graceful shutdown, never by cancelling its task: a cancelled server drops
/// connections it accepted but had not yet served, and NIO traps on them ("Deinited
/// NIOAsyncWriter without calling finish()", swift-nio issues 2813 and 3481).
public struct RunningServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The task running it.
    public let task: Task<Void, any Error>
    /// The service group the server runs in: its graceful shutdown stops the server.
    let group: ServiceGroup

    /// Whether it serves HTTPS.
    public let tls: Bool

    /// `http://HOST:PORT` (or https) for this server.
    public func url(host: String = "127.0.0.1") -> String {
        "\(tls ? "https" : "http")://\(host):\(port)"
    }

    /// Starts shutting the server down gracefully and returns at once.
    public func stop() {
        let group = group
        Task { await group.triggerGracefulShutdown() }
    }

    /// Shuts the server down gracefully and returns once it has stopped listening (its port
    /// is free).
    public func stopAndWait() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

extension ShippingServer {
    /// Starts the server in a task and returns once it listens (with port 0 in the
    /// configuration, on a free port). Throws when the TLS files cannot be read, and the
    /// server's own error when it stops before listening (the port is in use, say).
    public func start() async throws -> RunningServer {
        try await RunningServer.start(port: configuration.port, tls: configuration.tls != nil) {
            try application(onRunning: $0)
        }
    }
}

extension RunningServer {
    /// Runs the application `make` builds (handing it the callback that reports the bound
    /// port) in a task, and returns once it listens; throws `ServerStartError` with the
    /// application's own error when it ends first.
    package static func start<App: ApplicationProtocol>(
        port: Int, tls: Bool, _ make: (@escaping @Sendable (Int) async -> Void) throws -> App
    ) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try make { port in continuation.yield(port) }
        var logger = Logger(label: "logbook.server")
        logger.logLevel = .warning
        let group = ServiceGroup(
            configuration: .init(
                services: [application], gracefulShutdownSignals: [], logger: logger)
        )
        let task = Task {
            // However the server ends, the wait below must end too.
            defer { continuation.finish() }
            try await group.run()
        }
        var listening: Int?
        for await bound in ports {
            listening = bound
            break
        }
        guard let bound = listening else {
            try await task.value
            throw ServerStartError(port: port)
        }
        return RunningServer(port: bound, task: task, group: group, tls: tls)
    }
}

/// The server ended before it listened on its port.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    /// The port it was to listen on.
    public var port: Int
    /// What the server reported, if anything ("Address already in use" at best).
    public var cause: (any Error)?

    /// The error for `port`, with the server's own error when there was one.
    public init(port: Int, cause: (any Error)? = nil) {
        self.port = port
        self.cause = cause
    }

    /// A one-line explanation.
    public var description: String {
        let reason = cause.map { ": \($0)" } ?? ""
        return
            "the server stopped before it listened on port \(port) (is the port in use?)\(reason)"
    }
}
