import Foundation

/// Rounds per second in which `tasks` tasks each suspend on a continuation and a thread of
/// their own, once all of them are suspended, resumes them all; measured for about
/// `seconds`, and at least one round, from the moment all of them are first suspended.
///
/// Why: it is the part of a group-commit round that is the Swift runtime's, not the disk's
/// or the engine's. Each writer waits for the sync covering its call, so between two syncs
/// that each carry every writer, every writer is resumed, runs and suspends again. Here the
/// tasks do nothing else, so no group commit with that many writers can make more rounds a
/// second than this, however fast the disk.
public func measureTaskRoundTrips(tasks: Int, seconds: Double = 1) async -> Double {
    let rounds = SuspendedTasks(count: max(1, tasks))
    rounds.startResuming(forSeconds: seconds)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<max(1, tasks) {
            group.addTask { while await rounds.suspend() {} }
        }
    }
    return rounds.roundsPerSecond
}

/// The tasks of `measureTaskRoundTrips` and the thread that resumes them.
///
/// `@unchecked Sendable`: every stored property is guarded by `condition`.
private final class SuspendedTasks: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var suspended: [UnsafeContinuation<Bool, Never>] = []
    private var rounds = 0
    private var elapsed = 0.0

    init(count: Int) {
        self.count = count
        suspended.reserveCapacity(count)
    }

    /// Suspends until the next round; false once the measurement is over.
    func suspend() async -> Bool {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            condition.withLock {
                suspended.append(continuation)
                if suspended.count == count { condition.signal() }
            }
        }
    }

    /// Starts the thread that resumes the tasks each time all of them are suspended, and
    /// lets them end once `seconds` have passed and a round has been made.
    ///
    /// The clock starts when all of them are suspended for the first time: on a busy machine
    /// the tasks may wait long for a thread to start on, which is not a round trip.
    func startResuming(forSeconds seconds: Double) {
        Thread.startNamed("logbook-resumer") { [self] in
            var started: ContinuousClock.Instant?
            var isOver = false
            while !isOver {
                let resumed = condition.withLock {
                    while suspended.count < count { condition.wait() }
                    let now = ContinuousClock.now
                    if let started {
                        rounds += 1
                        elapsed = (now - started).seconds
                        isOver = elapsed >= seconds
                    } else {
                        started = now
                    }
                    defer { suspended.removeAll(keepingCapacity: true) }
                    return suspended
                }
                for continuation in resumed { continuation.resume(returning: !isOver) }
            }
        }
    }

    /// Rounds completed per second of the measurement; read once the tasks have ended.
    var roundsPerSecond: Double {
        condition.withLock { elapsed > 0 ? Double(rounds) / elapsed : 0 }
    }
}
