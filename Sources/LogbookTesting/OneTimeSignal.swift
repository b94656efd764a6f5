import Foundation

/// Tells tasks that something has happened, once: `send()` from any thread, `received()`
/// from a task, which then waits without holding a thread (a test double that blocks a
/// thread of the cooperative pool starves the rest of the suite on a two-core machine).
public final class OneTimeSignal: @unchecked Sendable {
    // @unchecked: `state` is read and written only under `lock`.
    /// Not sent yet, with the tasks waiting to hear it; or sent.
    private enum State {
        case waiting([CheckedContinuation<Void, Never>])
        case sent
    }
    private let lock = NSLock()
    private var state = State.waiting([])

    /// A signal not sent yet.
    public init() {}

    /// Resumes every task waiting, and those that wait later at once. Idempotent.
    public func send() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            defer { state = .sent }
            if case .waiting(let continuations) = state { return continuations }
            return []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once `send()` has been called (at once if it has).
    public func received() async {
        await withCheckedContinuation { continuation in
            let isSent = lock.withLock {
                guard case .waiting(var continuations) = state else { return true }
                continuations.append(continuation)
                state = .waiting(continuations)
                return false
            }
            if isSent { continuation.resume() }
        }
    }
}
