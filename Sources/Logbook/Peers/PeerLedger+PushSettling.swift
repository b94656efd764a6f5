/// When a pull from a hub is *settled*: this node has merged the hub's changes below the pull
/// cursor, and has pushed back to the hub everything it had logged by then (its own writes
/// and what it got elsewhere). The hub's tombstone GC relies only on settled pulls: once a
/// node's settled cursor passes a tombstone, the node holds it, and every change the node
/// logged before it holds it is in the hub already — so nothing older of that record can
/// come from this node later (docs/maintenance.md, "GC through a hub").
///
/// A pull notes (cursor, this log's durable end); a push whose cursor reaches that end
/// settles it. When the list is full the newest entry is replaced, so the older ones still
/// settle while a node pulls faster than it pushes.
extension PeerLedger {
    /// Unsettled pulls kept per push peer.
    static let pullsPendingMax = 16

    /// The newest settled pull cursor on the push peer `peer` (nil before the first).
    public func pullSettled(for peer: String) -> UInt64? {
        all[peer]?.pullSettled
    }
}

extension PeerLedger.Entry {
    /// Notes that the pull cursor reached `cursor` with this log's durable end at `logEnd`,
    /// and settles what the push cursor already covers.
    mutating func notePull(through cursor: UInt64, logEnd: UInt64) {
        var pending = pullsPending ?? []
        if let last = pending.last, last.count == 2, last[1] == logEnd {
            pending[pending.count - 1] = [max(last[0], cursor), logEnd]
        } else if pending.count < PeerLedger.pullsPendingMax {
            pending.append([cursor, logEnd])
        } else {
            pending[pending.count - 1] = [cursor, logEnd]
        }
        pullsPending = pending
        settlePulls()
    }

    /// Forgets every settled and pending pull: what they said no longer holds (the pull
    /// restarted, or the peer may have lost the pushes that settled them). Pulls from then on
    /// settle anew.
    mutating func forgetSettledPulls() {
        pullsPending = nil
        pullSettled = nil
    }

    /// Settles every pending pull whose log end the push cursor has reached.
    mutating func settlePulls() {
        guard var pending = pullsPending else { return }
        let pushed = pushed ?? 0
        while let first = pending.first, first.count == 2, first[1] <= pushed {
            pullSettled = max(pullSettled ?? 0, first[0])
            pending.removeFirst()
        }
        pending.removeAll { $0.count != 2 }
        pullsPending = pending.isEmpty ? nil : pending
    }
}
