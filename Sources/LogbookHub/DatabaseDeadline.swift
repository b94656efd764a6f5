import Foundation

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

    /// `body`'s result, or `Exceeded` once `limit` has passed. The bound is hard: `body`
    /// runs in its own task, which is cancelled at the bound but not waited for (a task
    /// group would wait for it, and a connection attempt under way can take far longer to
    /// notice its cancellation: a CI run saw 17 s against a 500 ms bound). A request
    /// waiting for a connection then leaves the pool's queue when it notices; a statement
    /// already sent ends as PostgreSQL ends it, and a merge it commits is merely
    /// acknowledged to nobody.
    static func run<Result: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = FirstOutcome<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let work = Task {
                    do {
                        outcome.settle(.success(try await body()))
                    } catch {
                        outcome.settle(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    outcome.settle(.failure(Exceeded(limit: limit)))
                }
                outcome.start(continuation, cancelling: [work, timer])
            }
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }
}

/// The first of the body's result, the bound and a cancellation: resumes the waiting
/// request once and cancels both tasks.
private final class FirstOutcome<Result: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result, any Error>?
    private var tasks: [Task<Void, Never>] = []
    private var early: Swift.Result<Result, any Error>?
    private var done = false

    /// Hands over the waiting request; settles it at once with an outcome that came first.
    func start(
        _ continuation: CheckedContinuation<Result, any Error>,
        cancelling tasks: [Task<Void, Never>]
    ) {
        let settled: Swift.Result<Result, any Error>? = lock.withLock {
            self.tasks = tasks
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let settled {
            for task in tasks { task.cancel() }
            continuation.resume(with: settled)
        }
    }

    /// Settles with `outcome` unless something came first.
    func settle(_ outcome: Swift.Result<Result, any Error>) {
        let (waiting, tasks): (CheckedContinuation<Result, any Error>?, [Task<Void, Never>]) =
            lock.withLock {
                guard !done else { return (nil, []) }
                done = true
                guard let continuation else {
                    early = outcome
                    return (nil, [])
                }
                self.continuation = nil
                return (continuation, self.tasks)
            }
        for task in tasks { task.cancel() }
        waiting?.resume(with: outcome)
    }
}
