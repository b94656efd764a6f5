import Foundation

/// Where pushes to a peer must stop while a merge of that peer's changes is in flight. A
/// pulled merge becomes durable (and so readable by a push) a moment before the ledger
/// records its offsets as echoes; a push reading the log in between would send the peer its
/// own changes back. The pull holds pushes from the log's end before it merges and releases
/// them once the echoes are recorded. Memory only: after a restart no merge is in flight.
final class PushHolds: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    private let lock = NSLock()
    private var nextId: UInt64 = 0
    private var holds: [UInt64: (peer: String, from: UInt64)] = [:]

    /// Holds pushes to `peer` from `offset` on until `release` with the returned id.
    func hold(_ peer: String, from offset: UInt64) -> UInt64 {
        lock.withLock {
            nextId &+= 1
            holds[nextId] = (peer, offset)
            return nextId
        }
    }

    func release(_ id: UInt64) {
        _ = lock.withLock { holds.removeValue(forKey: id) }
    }

    /// The lowest offset pushes to `peer` are held from; nil when none is held.
    func heldFrom(_ peer: String) -> UInt64? {
        lock.withLock { holds.values.filter { $0.peer == peer }.map(\.from).min() }
    }
}
