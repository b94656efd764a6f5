import Foundation

/// The caller's way of running several jobs at once: the storage layer starts no threads of
/// its own, so a caller that wants a rewrite to read segments in parallel hands one in.
public struct ConcurrentJobs: Sendable {
    /// How many jobs are worth running at once.
    public let width: Int
    /// Runs jobs `0..<count` (possibly at once) and returns when all have finished.
    public let run: @Sendable (_ count: Int, _ job: @Sendable (Int) -> Void) -> Void

    /// A runner of `width` jobs at a time.
    public init(
        width: Int, run: @escaping @Sendable (Int, @Sendable (Int) -> Void) -> Void
    ) {
        self.width = width
        self.run = run
    }

    /// Runs `job` for `0..<count` and returns each one's outcome, in order.
    public func map<Success: Sendable, Failure: Error>(
        _ count: Int, _ job: @Sendable (Int) throws(Failure) -> Success
    ) -> [Result<Success, Failure>] {
        let outcomes = Outcomes<Success, Failure>(count: count)
        run(count) { index in outcomes.store(index, Result { () throws(Failure) in try job(index) })
        }
        return outcomes.all()
    }
}

/// Each job's outcome, stored under a lock by the job's thread and read once all have run.
private final class Outcomes<Success: Sendable, Failure: Error>: @unchecked Sendable {
    // @unchecked: `outcomes` is guarded by `lock`.
    private let lock = NSLock()
    private var outcomes: [Result<Success, Failure>?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func store(_ index: Int, _ outcome: Result<Success, Failure>) {
        lock.withLock { outcomes[index] = outcome }
    }

    func all() -> [Result<Success, Failure>] {
        lock.withLock {
            outcomes.map { outcome in
                guard let outcome else { preconditionFailure("the runner skipped a job") }
                return outcome
            }
        }
    }
}
