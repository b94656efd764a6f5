import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Where the hub's PostgreSQL is, from a `postgres://` URL: host and port, or a Unix socket
/// directory as `?host=/path`; user, password and database; `sslmode` `disable`, `prefer`
/// (the default) or `require`; `pool_max` connections (default 20).
public struct HubDatabase: Sendable {
    /// The client configuration the URL describes.
    public var configuration: PostgresClient.Configuration
    /// The URL without its password, for messages and logs.
    public let redacted: String
    /// What `probe` connects with: a single connection that fails fast with the real reason.
    private let probeConfiguration: @Sendable () throws -> PostgresConnection.Configuration

    /// Parses `url`; throws `HubError.badDatabaseURL` saying what is wrong with it.
    public init(url: String) throws(HubError) {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw .badDatabaseURL(
                "expected postgres://USER@HOST:PORT/DATABASE, got \(Self.redact(url))")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { _, last in last })
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty
        else {
            throw .badDatabaseURL("the URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let password = components.password?.removingPercentEncoding
        let path = components.path.drop { $0 == "/" }
        let database = path.isEmpty ? nil : String(path).removingPercentEncoding
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let port = components.port ?? 5432
            let socket = "\(socketDirectory)/.s.PGSQL.\(port)"
            configuration = PostgresClient.Configuration(
                unixSocketPath: socket, username: user, password: password, database: database)
            probeConfiguration = {
                PostgresConnection.Configuration(
                    unixSocketPath: socket, username: user, password: password, database: database)
            }
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw .badDatabaseURL("the URL names no host")
            }
            let port = components.port ?? 5432
            guard (1...65_535).contains(port) else {
                throw .badDatabaseURL("port \(port) is not a TCP port")
            }
            let mode = try SSLMode(query["sslmode"] ?? "prefer")
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: mode.clientTLS)
            probeConfiguration = {
                let tls = try mode.connectionTLS()
                return PostgresConnection.Configuration(
                    host: host, port: port, username: user, password: password, database: database,
                    tls: tls)
            }
        }
        if let poolMax = query["pool_max"] {
            guard let connections = Int(poolMax), (1...1000).contains(connections) else {
                throw .badDatabaseURL("pool_max must be 1...1000, got \(poolMax.prefix(20))")
            }
            configuration.options.maximumConnections = connections
        }
        redacted = Self.redact(url)
    }

    /// `sslmode`, read once; the pool and the probe connection each take it in their type.
    private enum SSLMode {
        case disable, prefer, require

        init(_ text: String) throws(HubError) {
            switch text {
            case "disable": self = .disable
            case "prefer", "allow": self = .prefer
            case "require", "verify-full": self = .require
            default:
                throw .badDatabaseURL(
                    "sslmode must be disable, prefer or require, got \(text.prefix(20))")
            }
        }

        var clientTLS: PostgresClient.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        }

        func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        }
    }

    /// The URL with its password replaced by `***`.
    static func redact(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else {
            return url
        }
        components.password = "***"
        return components.string ?? "(unprintable URL)"
    }
}

extension HubDatabase {
    /// Connects once and disconnects: throws `HubError.database` with PostgreSQL's reason
    /// (refused, unknown host, authentication failed) within `timeout`. A pool retries
    /// quietly instead, so commands probe first.
    public func probe(logger: Logger, timeout: TimeAmount = .seconds(10)) async throws {
        var probe = try probeConfiguration()
        probe.options.connectTimeout = timeout
        do {
            let connection = try await PostgresConnection.connect(
                configuration: probe, id: 0, logger: logger)
            try await connection.close()
        } catch let error as PSQLError {
            throw HubError.database(
                url: redacted, detail: "cannot connect: \(Self.describe(error))")
        }
    }

    /// Runs `body` with a client on this database, shut down afterwards (whether `body`
    /// returns or throws), after a `probe`. PostgreSQL's errors come out as
    /// `HubError.database`, naming the redacted URL. The pool's own reports go to `logger`
    /// at `.error` and above only: its retries are noise to a command.
    public func withClient<Result: Sendable>(
        logger: Logger, _ body: (PostgresClient) async throws -> Result
    ) async throws -> Result {
        try await probe(logger: logger)
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        let redacted = redacted
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                return try await body(client)
            } catch let error as PSQLError {
                throw HubError.database(url: redacted, detail: Self.describe(error))
            }
        }
    }

    /// Creates or upgrades the hub schema; returns the migrations applied.
    public func migrate(logger: Logger) async throws -> [Int] {
        try await withClient(logger: logger) { try await HubSchema.migrate($0, logger: logger) }
    }

    /// What `migrate` did, in a line: the migrations applied, or that there were none.
    public func describeMigration(applied: [Int]) -> String {
        let done =
            applied.isEmpty
            ? "schema already at version"
            : "applied migration(s) \(applied.map(String.init).joined(separator: ", ")); schema at version"
        return "\(redacted): \(done) \(HubSchema.latestVersion)"
    }

    /// Creates a token granting `streams` (see `HubStore.createToken`) after checking the
    /// schema; returns its secret.
    public func createToken(streams: [String], readOnly: Bool, logger: Logger) async throws
        -> String
    {
        try await withClient(logger: logger) { client in
            let store = HubStore(client: client, logger: logger)
            try await store.checkSchema()
            return try await store.createToken(streams: streams, readOnly: readOnly)
        }
    }

    /// One tombstone GC pass over `streams` (nil: every stream) after checking the schema.
    public func collectTombstones(
        _ schedule: HubCollectionSchedule, streams: [String]?, logger: Logger
    ) async throws -> [HubCollectionReport] {
        try await withClient(logger: logger) { client in
            let store = HubStore(client: client, logger: logger)
            try await store.checkSchema()
            return try await store.collectTombstones(schedule, streams: streams)
        }
    }

    /// What went wrong, from PostgreSQL's own message when there is one (PSQLError's
    /// `description` hides everything by design).
    static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] {
            let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + code
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
