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
}

/// A peer's answer to a push, given after its commit.
public struct PushReceipt: Sendable, Equatable {
    /// Changes the peer took (the rest it held already).
    public var accepted: Int
    /// The peer's version after the push, when it says (a hub's stream version).
    public var peerVersion: UInt64?

    /// A receipt.
    public init(accepted: Int, peerVersion: UInt64? = nil) {
        self.accepted = accepted
        self.peerVersion = peerVersion
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
