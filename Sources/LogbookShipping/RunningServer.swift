import Hummingbird

/// A shipping server running in its own task, with the port it listens on.
public struct RunningServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The task running it; cancel it (or call `stop()`) to shut the server down.
    public let task: Task<Void, any Error>

    /// Whether it serves HTTPS.
    public let tls: Bool

    /// `http://HOST:PORT` (or https) for this server.
    public func url(host: String = "127.0.0.1") -> String {
        "\(tls ? "https" : "http")://\(host):\(port)"
    }

    /// Starts shutting the server down and returns at once.
    public func stop() { task.cancel() }

    /// Shuts the server down and returns once it has stopped listening (its port is free).
    public func stopAndWait() async {
        task.cancel()
        _ = try? await task.value  // a cancelled server ends with CancellationError or not at all
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
        let task = Task {
            // However the server ends, the wait below must end too.
            defer { continuation.finish() }
            try await application.run()
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
        return RunningServer(port: bound, task: task, tls: tls)
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
