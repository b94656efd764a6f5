/// The answering side of replication: what a node tells a peer that fetches from it, for
/// every transport (the HTTP server and the simulated network call the same code).
public struct ReplicationSource: Sendable {
    /// Why an acknowledgement was refused; nothing of it was stored.
    public enum Refusal: Error, CustomStringConvertible, Sendable {
        /// 0, or this node's own id: no peer.
        case notAPeer(String)
        /// A node not registered as this node's peer: storing its acknowledgement would
        /// block tombstone GC (and grow the ledger) at a client's whim.
        case unregistered(String)
        /// A position this log does not hold: past its durable end, or in another epoch.
        /// Storing it would tell tombstone GC the peer has records it never received.
        case diverged(String)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .notAPeer(let message), .unregistered(let message), .diverged(let message):
                message
            }
        }
    }

    let logbook: Logbook
    let ledger: PeerLedger

    /// The source of `logbook`, recording acknowledgements in `ledger`.
    public init(logbook: Logbook, ledger: PeerLedger) {
        self.logbook = logbook
        self.ledger = ledger
    }

    /// Stored batches from `offset`, at most `maxBytes` (at least one batch), checked against
    /// the position the fetcher states (`epoch`): see `Logbook.storedBatches`.
    public func batches(from offset: UInt64, epoch: UInt64?, maxBytes: Int) throws(LogbookError)
        -> BatchAnswer
    {
        let shipped: ShippedBatches
        do {
            shipped = try logbook.storedBatches(from: offset, maxBytes: maxBytes, epochId: epoch)
        } catch  where error.code == .snapshotRequired {
            return .snapshotRequired(reason: error.message)
        } catch  where error.code == .diverged {
            return .diverged(reason: error.message)
        }
        return .batches(
            FetchedBatches(
                bytes: shipped.bytes, batchCount: shipped.batchCount,
                durableOffset: shipped.durableOffset, nextOffset: shipped.nextOffset,
                startOffset: shipped.startOffset, nodeId: logbook.nodeId, epoch: shipped.epochId))
    }

    /// One page of the state: the records after `after` (all when nil) in ascending id
    /// order, whole records until at least `changesMax` changes (a record larger than that
    /// comes alone; the changes in no particular order), with the position a whole
    /// snapshot covers: the durable offset read before the page, in the epoch of the record
    /// before it.
    ///
    /// A follower continues from the first page's position once every page is merged: the
    /// state only grows while it pages (each later page is at least the state of the first),
    /// so the union covers everything below that offset. Complexity: one walk over the ids
    /// after `after` under the engine's lock, O(those ids) expected outside it to choose the
    /// page, and the page's records shared under the lock again (`Logbook.statePage`).
    public func statePage(after: String?, changesMax: Int) -> StatePage {
        let durable = logbook.durableOffset
        let (page, nextAfter) = logbook.statePage(after: after, changesMax: changesMax)
        return StatePage(
            changes: page.unorderedChanges(), nextAfter: nextAfter,
            covered: durable, epoch: epoch(before: durable), nodeId: logbook.nodeId)
    }

    /// The epoch of the record before `offset` (0 at the start of the log).
    public func epoch(before offset: UInt64) -> UInt64 {
        logbook.epochId(before: offset)
    }

    /// Records a registered peer's acknowledgement (durably); refuses any other, and one
    /// whose position this log does not hold (`Logbook.checkPosition`): an honest peer
    /// acknowledges only what it fetched, so such an acknowledgement is stale (this log was
    /// restored from an older copy since) or made up, and its next fetch resyncs it.
    public func accept(_ acknowledgement: ReplicationAcknowledgement) throws -> Void {
        let node = acknowledgement.node
        guard node != 0, node != logbook.nodeId else {
            throw Refusal.notAPeer(
                "node \(node) cannot acknowledge: 0 is no node, and \(logbook.nodeId) is this node")
        }
        guard ledger.registeredPeers.contains(node) else {
            throw Refusal.unregistered(
                "node \(node) is not a registered peer of node \(logbook.nodeId); "
                    + "register it there (`logbook peers DIR add \(node)`); nothing stored")
        }
        do {
            try logbook.checkPosition(acknowledgement.offset, epochId: acknowledgement.epoch)
        } catch {
            throw Refusal.diverged(
                "node \(node) acknowledges a position node \(logbook.nodeId) does not hold: "
                    + "\(error.message); nothing stored (the node resyncs on its next fetch)")
        }
        try ledger.acknowledge(
            PeerLedger.Acknowledgement(
                offset: acknowledgement.offset, peerLogEnd: acknowledgement.logEnd,
                peerCollectedBelow: acknowledgement.collectedBelow),
            byNode: node, logEnd: logbook.durableOffset)
    }
}
