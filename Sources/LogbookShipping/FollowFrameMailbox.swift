import Foundation

/// Where a streamed follow's reader task leaves each frame for the fetch that asks for it:
/// handed straight to a fetch already waiting, or kept (one frame read ahead) until a fetch
/// takes it, while the reader waits for room. The reader's last word — the end of the
/// stream or an error — is kept for every later fetch.
final class FollowFrameMailbox: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock` (see `DeadlineSweeper`).
    typealias Delivery = Result<FollowFrame?, any Error>

    private let lock = NSLock()
    /// A frame read ahead, or the reader's last word.
    private var kept: Delivery?
    /// Whether `kept` is the last word (the reader has stopped).
    private var ended = false
    /// The fetch waiting for a frame, and which of the waits it is.
    private var waiter: (wait: UInt64, continuation: CheckedContinuation<FollowFrame?, any Error>)?
    private var lastWait: UInt64 = 0
    /// The reader waiting for a fetch to take the frame it keeps.
    private var reader: CheckedContinuation<Void, Never>?

    /// For the reader: hands `delivery` to the waiting fetch, or keeps it and returns once
    /// a fetch took it (or the reader was cancelled). `last`: the reader stops after it.
    func deliver(_ delivery: Delivery, last: Bool) async {
        let handed: CheckedContinuation<FollowFrame?, any Error>? = lock.withLock {
            ended = last
            guard let waiter else {
                kept = delivery
                return nil
            }
            self.waiter = nil
            if last { kept = delivery }  // for the fetches after this one
            return waiter.continuation
        }
        if let handed {
            handed.resume(with: delivery)
            return
        }
        if last { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = lock.withLock {
                    guard kept != nil, !Task.isCancelled else { return false }
                    reader = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            lock.withLock {
                defer { reader = nil }
                return reader
            }?.resume()
        }
    }

    /// For a fetch: the frame kept, or the next the reader delivers. `wait` (from
    /// `nextWait`) names this wait for `fail`; a cancelled fetch throws `CancellationError`.
    func take(wait: UInt64) async throws -> FollowFrame? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (ready, roomForReader) = lock.withLock {
                    () -> (Delivery?, CheckedContinuation<Void, Never>?) in
                    if let kept {
                        if ended { return (kept, nil) }
                        self.kept = nil
                        defer { reader = nil }
                        return (kept, reader)
                    }
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    waiter = (wait, continuation)
                    return (nil, nil)
                }
                roomForReader?.resume()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(wait: wait, CancellationError())
        }
    }

    /// A name for the next fetch's wait.
    func nextWait() -> UInt64 {
        lock.withLock {
            lastWait &+= 1
            return lastWait
        }
    }

    /// Ends the fetch's wait `wait` with `error`, if it is still waiting.
    func fail(wait: UInt64, _ error: any Error) {
        let failed: CheckedContinuation<FollowFrame?, any Error>? = lock.withLock {
            guard let waiter, waiter.wait == wait else { return nil }
            self.waiter = nil
            return waiter.continuation
        }
        failed?.resume(throwing: error)
    }
}
