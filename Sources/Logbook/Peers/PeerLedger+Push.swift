/// The push side of a peer's entry: how far a hub has taken this node's log, and which
/// parts of the log came from that hub (so they are never pushed back to it).
extension PeerLedger {
    /// The most echo ranges kept per peer; past it the oldest is dropped, and at worst a
    /// push carries changes the peer already holds (which its merge rejects as echoes).
    static let echoRangesMax = 256

    /// The offset of our log the next push to `peer` starts at (0 when never pushed).
    public func pushCursor(for peer: String) -> UInt64 {
        all[peer]?.pushed ?? 0
    }

    /// The epoch of our log's record before `pushCursor(for: peer)` when the cursor was
    /// set; nil when unknown.
    public func pushEpoch(for peer: String) -> UInt64? {
        all[peer]?.pushedEpoch
    }

    /// Where `peer` merged our last acknowledged push, when it said.
    public func pushMergedAt(for peer: String) -> PeerPosition? {
        all[peer]?.pushMergedAt
    }

    /// Why the next push to `peer` must push our whole state, when it must
    /// (`requirePushRestart`).
    public func pushRestartReason(for peer: String) -> String? {
        all[peer]?.pushRestart
    }

    /// Records (durably) that the next push to `peer` must push our whole state, for
    /// `reason`: the peer no longer holds what it had (a pull found it, or a push was
    /// answered `PeerLostPushes`), so it may have lost what we pushed, and the echo ranges
    /// may hold back changes it no longer has. Until a restarted push is done the flag
    /// stays, so a state push cut short is pushed again. The settled pulls are forgotten:
    /// each stood on pushes the peer may have lost, and the peer's GC trusts them (pulls
    /// after the restart settle anew). Nothing happens for a peer we never pushed to.
    public func requirePushRestart(for peer: String, reason: String) throws {
        guard let entry = all[peer], entry.pushed != nil || entry.echoes != nil else { return }
        try update(peer, persistence: .durable) { entry in
            entry.pushRestart = reason
            entry.forgetSettledPulls()
        }
    }

    /// The peers this node pushes to (hubs), ascending: each entry with a push cursor, echo
    /// ranges or pulls to settle (a hub's pull remembers those before the first push).
    public var pushPeers: [String] {
        all.filter { _, entry in
            entry.pushed != nil || entry.echoes != nil || entry.pullsPending != nil
                || entry.pullSettled != nil
        }.map(\.key).sorted()
    }

    /// The ranges of our log that hold changes pulled from `peer`, ascending, that a push
    /// from the push cursor on must skip.
    public func echoes(for peer: String) -> [Range<UInt64>] {
        (all[peer]?.echoes ?? []).compactMap { pair in
            pair.count == 2 && pair[0] < pair[1] ? pair[0]..<pair[1] : nil
        }
    }

    /// What a push to `peer` must leave out of the log it has read: the offset pushes stop
    /// at while a pulled merge is in flight (nil when none is), and the echo ranges. Call it
    /// after reading the log: a merge that became durable before that read is then either
    /// still held or has its echoes recorded (the hold is released only after they are).
    public func pushExclusions(for peer: String) -> (heldFrom: UInt64?, echoes: [Range<UInt64>]) {
        let heldFrom = pushHolds.heldFrom(peer)
        return (heldFrom, echoes(for: peer))
    }

    /// Runs `merge` (a merge of changes pulled from `peer`, made durable, its echoes then
    /// recorded) with pushes to `peer` held from this log's current end on, so no push
    /// reads the merged changes before they are known as echoes.
    public func holdingPushes<Result>(
        to peer: String, from logEnd: UInt64, _ merge: () async throws -> Result
    ) async rethrows -> Result {
        let hold = pushHolds.hold(peer, from: logEnd)
        defer { pushHolds.release(hold) }
        return try await merge()
    }

    /// Records (as progress, `makeDurable` syncs it) that `peer` holds everything of our log
    /// below `offset`, whose record before it was written in `epoch`, and merged our last
    /// push at `mergedAt` (kept as it was when nil); forgets the echo ranges that end below
    /// it. The cursor only moves forward.
    public func setPushCursor(
        _ offset: UInt64, epoch: UInt64? = nil, mergedAt: PeerPosition? = nil, for peer: String
    ) throws {
        try update(peer, persistence: .progress) { entry in
            if offset >= entry.pushed ?? 0 {
                entry.pushed = offset
                entry.pushedEpoch = epoch
            }
            if let mergedAt { entry.pushMergedAt = mergedAt }
            entry.settlePulls()
            let kept = (entry.echoes ?? []).filter { $0.count == 2 && $0[1] > offset }
            entry.echoes = kept.isEmpty ? nil : kept
        }
    }
}

extension PeerLedger {
    /// Replaces `peer`'s push cursor with `offset` (even a lower one), after a push found
    /// the old cursor naming a position this log does not hold (a directory restored from
    /// an older copy, a `peers.json` from elsewhere), or the peer no longer holding what we
    /// pushed (`PeerLostPushes`, `requirePushRestart`), and pushed the whole state instead.
    /// Forgets every echo range: they may name offsets of that other history, where they
    /// would hide this log's own changes from every push; without them a push at worst
    /// sends the peer some of its own changes back, which its merge rejects. `mergedAt` is
    /// where the peer merged the state's last page (nil when it said nothing); a restart
    /// asked for (`requirePushRestart`) is done.
    public func restartPush(
        at offset: UInt64, epoch: UInt64?, mergedAt: PeerPosition? = nil, for peer: String
    ) throws {
        try update(peer, persistence: .progress) { entry in
            entry.pushed = offset
            entry.pushedEpoch = epoch
            entry.pushMergedAt = mergedAt
            entry.pushRestart = nil
            entry.echoes = nil
            entry.settlePulls()
        }
    }
}

extension PeerLedger.Entry {
    /// Adds `range` to the echo ranges, joined to the last one when they touch.
    mutating func addEcho(_ range: Range<UInt64>) {
        guard !range.isEmpty, range.upperBound > pushed ?? 0 else { return }
        var ranges = echoes ?? []
        if let last = ranges.last, last.count == 2, last[1] == range.lowerBound {
            ranges[ranges.count - 1] = [last[0], range.upperBound]
        } else {
            ranges.append([range.lowerBound, range.upperBound])
        }
        if ranges.count > PeerLedger.echoRangesMax {
            ranges.removeFirst(ranges.count - PeerLedger.echoRangesMax)
        }
        echoes = ranges
    }
}

extension PeerLedger {
    /// Records (as progress) that `range` of our log holds changes pulled from `peer`.
    public func addEchoes(_ range: Range<UInt64>, for peer: String) throws {
        guard !range.isEmpty else { return }
        try update(peer, persistence: .progress) { $0.addEcho(range) }
    }
}
