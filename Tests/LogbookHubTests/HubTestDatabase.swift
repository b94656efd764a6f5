import Foundation
import LogbookHub
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL the hub's tests run against: `LOGBOOK_TEST_POSTGRES_URL`, set by
/// `scripts/with-postgres.sh` (which `make test` runs the tests under). Without it the tests
/// are skipped, except in CI (`CI=true`), where a missing database is a failure.
enum HubTestDatabase {
    static let url = ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"]
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether hub tests run: a database is given, or CI demands one.
    static var enabled: Bool { url != nil || isCI }

    static let logger = Logger(label: "logbook.hub.tests")

    /// Runs `body` with a client of its own on `url` (the test database by default), shut
    /// down afterwards.
    static func withClient<Result: Sendable>(
        url given: String? = nil, poolMax: Int = 8,
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let url = try #require(
            given ?? url,
            "LOGBOOK_TEST_POSTGRES_URL is unset; run the tests through scripts/with-postgres.sh")
        var database = try HubDatabase(url: url)
        database.configuration.options.maximumConnections = poolMax
        return try await database.withClient(logger: logger, body)
    }

    /// Runs `body` with a migrated store.
    static func withStore<Result: Sendable>(
        poolMax: Int = 8, _ body: @Sendable (HubStore) async throws -> Result
    ) async throws -> Result {
        try await withClient(poolMax: poolMax) { client in
            try await HubSchema.migrate(client, logger: logger)
            return try await body(HubStore(client: client, logger: logger))
        }
    }

    /// Runs `body` with the URL of a new, empty database, dropped afterwards.
    static func withFreshDatabase<Result: Sendable>(
        _ body: @Sendable (String) async throws -> Result
    ) async throws -> Result {
        let name = "logbook_test_\(UUID().uuidString.prefix(8).lowercased())"
        let base = try #require(url)
        try await withClient { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let fresh = try #require(components.string)
        do {
            let result = try await body(fresh)
            try await drop(name)
            return result
        } catch {
            try? await drop(name)
            throw error
        }
    }

    private static func drop(_ name: String) async throws {
        try await withClient { client in
            _ = try await client.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
        }
    }

    /// A stream name no other test uses.
    static func freshStream(_ label: String = #function) -> String {
        "test-\(label.filter { $0.isLetter || $0.isNumber }.prefix(40))-\(UUID().uuidString.prefix(8))"
    }
}
