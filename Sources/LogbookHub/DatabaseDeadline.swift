import Foundation
import LogbookShipping

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

    /// `body`'s result, or `Exceeded` once `limit` has passed (`DeadlineSweeper.shared`
    /// checks the bound, so it may end up to its interval late: no timer per statement).
    /// The bound is hard: `body` runs in its own task, which is cancelled at the bound but
    /// not waited for (a task group would wait for it, and a connection attempt under way
    /// can take far longer to notice its cancellation: a CI run saw 17 s against a 500 ms
    /// bound). A request waiting for a connection then leaves the pool's queue when it
    /// notices; a statement already sent ends as PostgreSQL ends it, and a merge it commits
    /// is merely acknowledged to nobody.
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
                let deadline = DeadlineSweeper.shared.register(deadline: .now + limit) {
                    outcome.settle(.failure(Exceeded(limit: limit)))
                }
                outcome.start(continuation, cancelling: work, deadline: deadline)
            }
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }
}

/// The first of the body's result, the bound and a cancellation: resumes the waiting
/// request once, cancels the body's task and forgets the deadline.
private final class FirstOutcome<Result: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result, any Error>?
    private var work: Task<Void, Never>?
    private var deadline: UInt64?
    private var early: Swift.Result<Result, any Error>?
    private var done = false

    /// Hands over the waiting request; settles it at once with an outcome that came first.
    func start(
        _ continuation: CheckedContinuation<Result, any Error>,
        cancelling work: Task<Void, Never>, deadline: UInt64
    ) {
        let settled: Swift.Result<Result, any Error>? = lock.withLock {
            (self.work, self.deadline) = (work, deadline)
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let settled {
            Self.stop(work, deadline)
            continuation.resume(with: settled)
        }
    }

    /// Settles with `outcome` unless something came first.
    func settle(_ outcome: Swift.Result<Result, any Error>) {
        let (waiting, work, deadline) = lock.withLock {
            () -> (CheckedContinuation<Result, any Error>?, Task<Void, Never>?, UInt64?) in
            guard !done else { return (nil, nil, nil) }
            done = true
            guard let continuation else {
                early = outcome
                return (nil, nil, nil)
            }
            self.continuation = nil
            return (continuation, self.work, self.deadline)
        }
        Self.stop(work, deadline)
        waiting?.resume(with: outcome)
    }

    private static func stop(_ work: Task<Void, Never>?, _ deadline: UInt64?) {
        work?.cancel()
        if let deadline { DeadlineSweeper.shared.cancel(deadline) }
    }
}
