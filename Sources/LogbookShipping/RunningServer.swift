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

    /// Shuts the server down.
    public func stop() { task.cancel() }
}

extension ShippingServer {
    /// Starts the server in a task and returns once it listens (with port 0 in the
    /// configuration, on a free port). Throws when the TLS files cannot be read.
    public func start() async throws -> RunningServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try application { port in continuation.yield(port) }
        let task = Task { try await application.run() }
        var port = 0
        for await bound in ports {
            port = bound
            break
        }
        return RunningServer(port: port, task: task, tls: configuration.tls != nil)
    }
}
