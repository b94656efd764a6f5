import LogbookCRDT

/// How a replication session reaches one peer: fetch its stored batches from a position,
/// fetch its state a page at a time, acknowledge what was merged. HTTP is one transport
/// (`LogbookShipping`), a simulated network another (`LogbookTesting`); the session does
/// the rest (cursors, position checks, validation, merge, acknowledgements, snapshots), so
/// every transport runs the same replication code.
///
/// A transport only moves bytes and answers: it never merges, never moves a cursor, and
/// reports a failed or cut transfer by throwing or by handing over the bytes that arrived
/// (the session checks them whole).
public protocol ReplicationTransport: Sendable {
    /// The peer's name: its cursor's key in the `PeerLedger` (a URL for HTTP) and the
    /// prefix of every error message about it.
    var peerName: String { get }

    /// The peer's stored batches from `offset` (at most about `maxBytes`), stating the
    /// position held: `epoch` of the record before `offset` when known. With `wait`, the
    /// peer may hold the request until something is durable past `offset` (a long poll).
    func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
        async throws -> BatchAnswer

    /// One page of the peer's state: whole records after `after` in id order, about
    /// `changesMax` changes.
    func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage

    /// Tells the peer what this node merged of its log, with this node's own log end and GC
    /// frontier (the peer's tombstone GC needs both).
    func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws

    /// The tombstones a hub lets its nodes collect, listed from hub version `from` on
    /// (`CollectableTombstones`). Peers that are not hubs list nothing: the default throws.
    func fetchCollectable(from version: UInt64) async throws -> CollectableTombstones
}

extension ReplicationTransport {
    /// A peer that is not a hub: it lists no tombstones (tombstone GC with it follows the
    /// mesh rule, `Logbook.collectTombstones(peers:_:)`).
    public func fetchCollectable(from version: UInt64) async throws -> CollectableTombstones {
        throw ReplicationError(message: "\(peerName): not a hub; it lists no tombstones to collect")
    }
}

/// A peer's answer to a request for batches.
public enum BatchAnswer: Sendable {
    /// Stored batches and the peer's offsets.
    case batches(FetchedBatches)
    /// The offset asked for is below the peer's history start: take its state.
    case snapshotRequired(reason: String)
    /// The peer does not hold the position stated (its log was restored from an older copy,
    /// or another log answers at its address): take its state.
    case diverged(reason: String)
}

/// Stored batches as a peer sent them, with the offsets it announced.
public struct FetchedBatches: Sendable {
    /// The batches, verbatim; checked whole by `ShippedBatchReader` before any is merged.
    public var bytes: [UInt8]
    /// How many batches the peer says `bytes` holds.
    public var batchCount: Int
    /// The peer's durable high watermark.
    public var durableOffset: UInt64
    /// Where the batches end, as the peer announces it (checked against the bytes).
    public var nextOffset: UInt64
    /// The peer's history start, when it said.
    public var startOffset: UInt64?
    /// The peer's node id, when it said.
    public var nodeId: UInt64?
    /// The epoch of the record before `nextOffset`, when the peer said.
    public var epoch: UInt64?

    /// Batches with the offsets a peer announced.
    public init(
        bytes: [UInt8], batchCount: Int, durableOffset: UInt64, nextOffset: UInt64,
        startOffset: UInt64? = nil, nodeId: UInt64? = nil, epoch: UInt64? = nil
    ) {
        self.bytes = bytes
        self.batchCount = batchCount
        self.durableOffset = durableOffset
        self.nextOffset = nextOffset
        self.startOffset = startOffset
        self.nodeId = nodeId
        self.epoch = epoch
    }
}

/// One page of a peer's state and the position a whole snapshot leaves its receiver at.
public struct StatePage: Sendable {
    /// The page's changes (whole records), in no particular order: merging them gives the
    /// same state in any order.
    public var changes: [Change<String, String, Value>]
    /// The id to ask after for the next page; nil on the last page.
    public var nextAfter: String?
    /// Every offset of the peer's log below this is covered by its state (the durable
    /// offset read before the page was taken).
    public var covered: UInt64
    /// The epoch of the record before `covered`, when the peer said.
    public var epoch: UInt64?
    /// The peer's node id, when it said.
    public var nodeId: UInt64?

    /// A page with the position it covers.
    public init(
        changes: [Change<String, String, Value>], nextAfter: String?, covered: UInt64,
        epoch: UInt64? = nil, nodeId: UInt64? = nil
    ) {
        self.changes = changes
        self.nextAfter = nextAfter
        self.covered = covered
        self.epoch = epoch
        self.nodeId = nodeId
    }
}

/// What a node tells a peer it merged: offsets of the peer's log below `offset`.
public struct ReplicationAcknowledgement: Sendable, Equatable {
    /// The acknowledging node.
    public var node: UInt64
    /// It merged the peer's log below this offset.
    public var offset: UInt64
    /// The epoch of the record before `offset`, as the peer's answer named it: the peer
    /// checks that its log still holds that position before storing anything.
    public var epoch: UInt64?
    /// Its own durable log end.
    public var logEnd: UInt64?
    /// Its own GC frontier.
    public var collectedBelow: UInt64?
    /// To a hub: the newest cursor on the hub whose pull is settled (everything this node
    /// had logged when it pulled that far has been pushed to the hub).
    public var settled: UInt64?
    /// To a hub: this node has collected every tombstone the hub listed below this hub
    /// version (`CollectableTombstones`).
    public var listedCollectedBelow: UInt64?

    /// An acknowledgement from `node`.
    public init(
        node: UInt64, offset: UInt64, epoch: UInt64? = nil, logEnd: UInt64? = nil,
        collectedBelow: UInt64? = nil, settled: UInt64? = nil,
        listedCollectedBelow: UInt64? = nil
    ) {
        self.node = node
        self.offset = offset
        self.epoch = epoch
        self.logEnd = logEnd
        self.collectedBelow = collectedBelow
        self.settled = settled
        self.listedCollectedBelow = listedCollectedBelow
    }
}

/// Why a replication step failed: a peer's answer that does not check out, or a refusal.
public struct ReplicationError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, starting with the peer's name.
    public var message: String
    /// A one-line explanation.
    public var description: String { message }

    /// An error with its message.
    public init(message: String) { self.message = message }
}
