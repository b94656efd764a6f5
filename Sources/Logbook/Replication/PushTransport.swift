/// How a push session reaches a peer that takes pushes (a hub): it sends stored batches and
/// hears back only after the peer made them durable. HTTP is one transport
/// (`LogbookShipping`); a test may simulate one.
public protocol PushTransport: Sendable {
    /// The peer's name: the key of its entry in the `PeerLedger` (the same as the pull
    /// transport's, so the pull's echo ranges reach the push) and the prefix of errors.
    var peerName: String { get }

    /// Sends `batches` (shipped batches, `ShippedBatchReader`'s format) holding
    /// `changeCount` changes; returns once the peer has made them durable. Throws when it
    /// refused them or the answer did not arrive: the push is then retried from the same
    /// cursor (merging the same changes twice changes nothing).
    func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt

    /// `push(_:changeCount:)`, stating where the peer merged this node's earlier pushes (the
    /// last receipt's `position`, nil before the first). A peer that no longer holds that
    /// position (a hub whose database was restored from an older copy) merges the push and
    /// then throws `PeerLostPushes`, so the session pushes its whole state. The default
    /// states nothing.
    func push(_ batches: [UInt8], changeCount: Int, after earlier: PeerPosition?) async throws
        -> PushReceipt
}

extension PushTransport {
    /// A transport to a peer that keeps no positions: the push states nothing.
    public func push(_ batches: [UInt8], changeCount: Int, after earlier: PeerPosition?)
        async throws -> PushReceipt
    {
        try await push(batches, changeCount: changeCount)
    }
}

/// A position in a peer's history as the peer numbers it: a hub's stream version and the
/// epoch holding it (nil when the peer did not say).
public struct PeerPosition: Sendable, Equatable, Codable {
    /// The peer's version.
    public var version: UInt64
    /// The epoch that held `version` when the peer said so.
    public var epoch: UInt64?

    /// A position.
    public init(version: UInt64, epoch: UInt64?) {
        self.version = version
        self.epoch = epoch
    }
}

/// The peer no longer holds the position where it merged this node's earlier pushes: a
/// restore lost them. The push that found it out was merged.
public struct PeerLostPushes: Error, CustomStringConvertible, Sendable {
    /// The peer's words.
    public var reason: String

    /// An error with the peer's words.
    public init(reason: String) { self.reason = reason }

    /// The peer's words.
    public var description: String { reason }
}

/// A peer's answer to a push, given after its commit.
public struct PushReceipt: Sendable, Equatable {
    /// Changes the peer took (the rest it held already).
    public var accepted: Int
    /// The peer's version after the push, when it says (a hub's stream version).
    public var peerVersion: UInt64?
    /// The epoch holding `peerVersion`, when the peer says.
    public var peerEpoch: UInt64?

    /// A receipt.
    public init(accepted: Int, peerVersion: UInt64? = nil, peerEpoch: UInt64? = nil) {
        self.accepted = accepted
        self.peerVersion = peerVersion
        self.peerEpoch = peerEpoch
    }

    /// Where the peer merged the push, when it said (a version of 0 says nothing: an
    /// empty push took none).
    public var position: PeerPosition? {
        guard let peerVersion, peerVersion > 0 else { return nil }
        return PeerPosition(version: peerVersion, epoch: peerEpoch)
    }
}

/// What a push session did. Encoded by its property names (`logbook sync --json`).
public struct PushReport: Sendable, Equatable, Encodable {
    /// Bodies the peer acknowledged.
    public var pushes = 0
    /// Changes sent.
    public var sent = 0
    /// Changes the peer took.
    public var accepted = 0
    /// Changes left out because they came from the peer (echoes).
    public var echoesSkipped = 0
    /// Times the log below the push cursor was gone (compacted or collected) and the state
    /// was pushed instead.
    public var statePushes = 0
    /// Times the push cursor named a position this log does not hold, so the state was
    /// pushed and the cursor replaced (`PushSession`); with the latest reason.
    public var restarts = 0
    /// Why the latest restart happened (nil when none did).
    public var restartReason: String?
    /// The push cursor afterwards: the peer holds everything of this log below it.
    public var cursor: UInt64 = 0
    /// This log's durable end when the push read it.
    public var durableOffset: UInt64 = 0

    /// An empty report.
    public init() {}
}
