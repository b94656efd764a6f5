import Foundation
import HTTPTypes
import Hummingbird

/// How many answers that may be large a server builds at once: a whole `GET /changes`, a
/// page of more than `ShippingServer.windowChanges` changes, a `GET /snapshot`, the hub's
/// whole `GET changes`. Each holds what it answers from (on a node the gathered state,
/// O(records); on a hub up to `changesPerResponseMax` changes) until its last byte is
/// written, so without a bound a few hundred slow clients would hold a few hundred states.
///
/// A request takes a slot before it gathers anything and keeps it for as long as its
/// response lives (`hold(_:)`); one that finds every slot taken waits up to `waitMax`, in
/// arrival order, and is then answered 503 with `Retry-After`. Memory for such answers is
/// so bounded by `count` answers, whatever the clients do. `refused` is called for each 503
/// (the node and the hub count them in their metrics).
package final class LargeAnswerSlots: @unchecked Sendable {
    // @unchecked: `taken`, `waiters` and `nextWaiter` are guarded by `lock`.
    package let count: Int
    package let waitMax: Duration
    private let lock = NSLock()
    private var taken = 0
    private var waiters: [(id: Int, resume: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter = 0
    private let refused: @Sendable () -> Void

    package init(count: Int, waitMax: Duration, refused: @escaping @Sendable () -> Void = {}) {
        self.count = max(1, count)
        self.waitMax = waitMax
        self.refused = refused
    }

    /// A slot, released when the last reference to it goes (`hold(_:)` keeps it for as long
    /// as a response body lives), so no path can leak one.
    package final class Slot: Sendable {
        private let slots: LargeAnswerSlots

        fileprivate init(_ slots: LargeAnswerSlots) { self.slots = slots }

        deinit { slots.release() }

        /// `body`, keeping this slot until it has been written, or dropped unwritten.
        package func hold(_ body: ResponseBody) -> ResponseBody {
            ResponseBody(contentLength: body.contentLength) { writer in
                try await body.write(writer)
                withExtendedLifetime(self) {}
            }
        }
    }

    /// Slots taken now, for tests and the status page.
    package var inUse: Int { lock.withLock { taken } }

    /// A slot, after waiting for one when all are taken; 503 after `waitMax`.
    package func acquire() async throws -> Slot {
        var timeout: Task<Void, Never>?
        let granted = await withCheckedContinuation { (resume: CheckedContinuation<Bool, Never>) in
            let waiter = lock.withLock { () -> Int? in
                if taken < count {
                    taken += 1
                    return nil
                }
                nextWaiter += 1
                waiters.append((nextWaiter, resume))
                return nextWaiter
            }
            guard let waiter else { return resume.resume(returning: true) }
            // Started once the waiter is listed, so the wait cannot outlive its timeout.
            timeout = Task { [waitMax] in
                guard (try? await Task.sleep(for: waitMax)) != nil else { return }
                self.expire(waiter)
            }
        }
        timeout?.cancel()
        guard granted else {
            refused()
            var headers = HTTPFields()
            headers[.retryAfter] = "1"
            throw HTTPError(
                .serviceUnavailable, headers: headers,
                message:
                    "\(count) large answers are being sent; retry, or page with limit= "
                    + "(GET /changes) or page_changes= (GET /snapshot)")
        }
        return Slot(self)
    }

    /// Hands a released slot to the longest waiter, or frees it.
    fileprivate func release() {
        let next = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard !waiters.isEmpty else {
                taken -= 1
                return nil
            }
            return waiters.removeFirst().resume
        }
        next?.resume(returning: true)
    }

    /// Ends waiter `id`'s wait unanswered, if it still waits.
    private func expire(_ id: Int) {
        let expired = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index).resume
        }
        expired?.resume(returning: false)
    }
}

extension LargeAnswerSlots {
    /// The response `build` makes, built and sent holding a slot when it may be large: when
    /// it asks for more than `ShippingServer.windowChanges` changes, or for everything
    /// (`changesAsked` nil). A small page takes none. Every large answer goes through here,
    /// so none can be built without its slot or leave it before its body is sent.
    package func answer(
        changesAsked: Int?, _ build: () async throws -> Response
    ) async throws -> Response {
        guard changesAsked.map({ $0 > ShippingServer.windowChanges }) ?? true else {
            return try await build()
        }
        let slot = try await acquire()
        var response = try await build()
        response.body = slot.hold(response.body)
        return response
    }
}

extension ShippingServer {
    /// About how many changes a whole `GET /changes` answer builds at once: 16,384 (about
    /// 1.5 MB), however large the state.
    package static let windowChanges = 16_384
}
