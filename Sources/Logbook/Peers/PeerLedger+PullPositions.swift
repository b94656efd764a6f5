/// A pull cursor says "everything the peer logged below this offset is merged here". That is
/// true only while this log holds what those merges wrote: a log restored from an older copy
/// while `peers.json` was not (or a `peers.json` copied from elsewhere) keeps a cursor whose
/// merges are gone. Pulling on from it would skip the peer's changes below it for good, its
/// acknowledgement would let the peer's GC count them as received here, and this node's GC
/// would settle the peer's acknowledgements on pulls it no longer holds. So each cursor keeps
/// the position this log had once its merges were durable (`Entry.mergedInto`), and a cursor
/// whose position the log does not hold is restarted from 0: the next pull takes the peer's
/// state (or its whole history), which nothing is skipped by.
extension PeerLedger {
    /// Why `peer`'s pull cursor names merges `logbook` does not hold, or nil when it holds
    /// them or the cursor predates `mergedInto` (older builds: not checked).
    public func reasonPullNotHeld(_ peer: String, by logbook: Logbook) -> String? {
        guard let entry = all[peer], entry.cursor != nil, let position = entry.mergedPosition
        else { return nil }
        return logbook.reasonNotHeld(position.offset, epochId: position.epochId)
    }

    /// Every peer whose pull cursor names merges `logbook` does not hold, with why, in name
    /// order; changes nothing.
    public func pullsNotHeld(by logbook: Logbook) -> [(peer: String, reason: String)] {
        all.keys.sorted().compactMap { peer in
            reasonPullNotHeld(peer, by: logbook).map { (peer, $0) }
        }
    }

    /// Restarts `peer`'s pull from 0 when `logbook` does not hold its merges; returns why, or
    /// nil when the cursor stands (`restartPull`).
    @discardableResult
    public func restartPullIfNotHeld(_ peer: String, by logbook: Logbook) throws -> String? {
        guard let reason = reasonPullNotHeld(peer, by: logbook) else { return nil }
        try restartPull(peer)
        return reason
    }

    /// `restartPullIfNotHeld` for every peer pulled from; returns the peers restarted, with
    /// why, in name order.
    @discardableResult
    public func restartPullsNotHeld(by logbook: Logbook) throws -> [(peer: String, reason: String)]
    {
        let lost = pullsNotHeld(by: logbook)
        for (peer, _) in lost { try restartPull(peer) }
        return lost
    }

    /// Moves `peer`'s pull cursor back to 0 and forgets what relied on its pulls: the echo
    /// ranges and settled pulls of a push peer, and the settled acknowledgement of the peer's
    /// node (it was settled by pulling past the peer's log end). Written as progress: a power
    /// cut that takes it brings the old cursor back, which the next check restarts.
    private func restartPull(_ peer: String) throws {
        let nodeId = all[peer]?.nodeId
        try update(peer, persistence: .progress) { entry in
            entry.cursor = nil
            entry.epoch = nil
            entry.mergedInto = nil
            entry.mergedEpoch = nil
            entry.echoes = nil
            entry.forgetSettledPulls()
        }
        if let nodeId, acknowledgement(of: nodeId)?.settledAcknowledged != nil {
            try update(Self.nodeEntryName(nodeId), persistence: .progress) { entry in
                entry.settledAcknowledged = nil
                entry.settledPeerLogEnd = nil
            }
        }
    }
}

extension PeerLedger.Entry {
    /// The position `mergedInto` names, when the cursor was set with one.
    var mergedPosition: LogPosition? {
        guard let mergedInto, let mergedEpoch else { return nil }
        return LogPosition(offset: mergedInto, epochId: mergedEpoch)
    }
}
