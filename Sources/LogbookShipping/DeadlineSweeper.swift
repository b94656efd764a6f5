import Foundation

/// Ends many waits at their deadlines with one task: a wait registers its deadline and what
/// to do then, and a sweeper checks every `interval` while any wait is registered, then
/// stops. A thousand followers each waiting for their next frame so arm no thousand timers
/// (each a task and a cancellation per frame); a wait ends at most `interval` late.
package final class DeadlineSweeper: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock` (NSLock, not Synchronization's Mutex,
    // which needs macOS 15 where the package supports macOS 14).

    /// The sweeper for deadlines of a second or more (a follow stream's frame, a hub's
    /// wait for its database), shared by the process.
    package static let shared = DeadlineSweeper(interval: .milliseconds(100))

    /// How often waits that ran out are ended: the precision of every deadline.
    let interval: Duration

    private struct Wait {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var waits: [UInt64: Wait] = [:]
    private var lastID: UInt64 = 0
    /// Whether a sweeper runs (it stops once no wait is left).
    private var sweeping = false
    private var started = 0

    package init(interval: Duration) {
        self.interval = interval
    }

    /// How many waits are registered (for tests).
    var registeredCount: Int { lock.withLock { waits.count } }
    /// How many sweepers were started (for tests).
    var sweepersStarted: Int { lock.withLock { started } }

    /// Runs `expire` once `deadline` has passed, unless `cancel` is called first with the
    /// identifier returned. `expire` runs on the sweeper's task, outside any lock.
    package func register(
        deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let (id, startsSweeper) = lock.withLock {
            lastID &+= 1
            waits[lastID] = Wait(deadline: deadline, expire: expire)
            defer { sweeping = true }
            if !sweeping { started += 1 }
            return (lastID, !sweeping)
        }
        if startsSweeper { Task.detached { await self.sweep() } }
        return id
    }

    /// Forgets the wait `id` (it ended before its deadline); nothing when it already expired.
    package func cancel(_ id: UInt64) {
        _ = lock.withLock { waits.removeValue(forKey: id) }
    }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: interval)
            let now = ContinuousClock.now
            let (expired, stops) = lock.withLock {
                var expired: [@Sendable () -> Void] = []
                for (id, wait) in waits where wait.deadline <= now {
                    expired.append(wait.expire)
                    waits[id] = nil
                }
                // The next wait registered starts a new sweeper.
                if waits.isEmpty { sweeping = false }
                return (expired, waits.isEmpty)
            }
            for expire in expired { expire() }
            if stops { return }
        }
    }
}
