import Foundation
import Logbook
import LogbookShipping
import Logging
import ServiceLifecycle

/// Follows one peer as a service (`ReplicationSession.run`: long polls, backoff after
/// failures) until graceful shutdown, which cancels the poll in flight; what was merged is
/// durable before each cursor move, so stopping anywhere loses nothing. Logs at most one
/// line a second of what the pulls brought, and every failure.
struct FollowerService: Service {
    let puller: PeerPuller
    let wait: Duration
    let logger: Logger

    func run() async throws {
        let summary = PullSummary()
        let logger = logger
        await cancelWhenGracefulShutdown { [puller, wait] in
            await puller.run(interval: wait) { outcome in
                switch outcome {
                case .success(let report):
                    if let line = summary.add(report) {
                        logger.info(
                            "pulled \(line.received) changes, accepted \(line.accepted); cursor \(line.cursor)"
                        )
                    }
                case .failure(let error):
                    logger.warning("pull failed: \(error); retrying")
                }
            }
        }
    }
}

/// Sums a follower's pulls and hands out a line's worth at most once a second, or when the
/// peer goes quiet (and only when something was accepted).
final class PullSummary: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var received = 0
    private var accepted = 0
    private var printed = ContinuousClock.now - .seconds(1)

    func add(_ report: ReplicationReport) -> (received: Int, accepted: Int, cursor: UInt64)? {
        lock.withLock {
            received += report.received
            accepted += report.accepted
            // A quiet poll (pulls 0) flushes what is left, so the last pulls get their line.
            let due = ContinuousClock.now - printed >= .seconds(1) || report.pulls == 0
            guard accepted > 0, due else { return nil }
            defer {
                received = 0
                accepted = 0
                printed = .now
            }
            return (received, accepted, report.cursor)
        }
    }
}
