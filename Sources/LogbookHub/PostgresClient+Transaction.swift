import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction`, throwing what went wrong rather than postgres-nio's wrapper: the
    /// body's own error (a `HubError` such as "snapshot required" must reach the server's
    /// mapping to 410, not become a 500), else the failed BEGIN or COMMIT.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> Result {
        do {
            return try await withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }
}
