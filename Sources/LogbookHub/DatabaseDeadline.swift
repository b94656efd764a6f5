/// A bound on how long a request waits for the database. postgres-nio's pool keeps a
/// request for a connection waiting for as long as the server is unreachable, with no
/// timeout of its own; a hub must instead answer 503 and let the node retry, and must not
/// hold requests that keep a graceful shutdown from ending.
enum DatabaseDeadline {
    /// The database did not answer within the bound.
    struct Exceeded: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "the database did not answer within \(limit)" }
    }

    /// `body`'s result, or `Exceeded` once `limit` has passed (`body` is then cancelled: a
    /// request waiting for a connection leaves the pool's queue; a statement already sent
    /// ends as PostgreSQL ends it, and a merge it commits is merely acknowledged to nobody).
    static func run<Result: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw Exceeded(limit: limit)
            }
            return result
        }
    }
}
