extension PeerLedger.Entry {
    /// Drops what the peer acknowledged past `logEnd` (this log's durable end): the
    /// acknowledged offset, the settled acknowledgement and pending ones. An honest peer
    /// acknowledges only offsets it fetched, and a log's durable end never goes back, so
    /// such values describe another copy of this log; GC must not count on them.
    mutating func forgetAcknowledgements(past logEnd: UInt64) {
        if let acknowledged, acknowledged > logEnd { self.acknowledged = nil }
        if let settled = settledAcknowledged, settled > logEnd {
            settledAcknowledged = nil
            settledPeerLogEnd = nil
        }
        if let pending, pending.contains(where: { ($0.first ?? 0) > logEnd }) {
            let kept = pending.filter { ($0.first ?? 0) <= logEnd }
            self.pending = kept.isEmpty ? nil : kept
        }
    }

    /// True when the entry holds an acknowledgement past `logEnd` (see
    /// `forgetAcknowledgements(past:)`).
    func acknowledges(past logEnd: UInt64) -> Bool {
        (acknowledged ?? 0) > logEnd || (settledAcknowledged ?? 0) > logEnd
    }
}
