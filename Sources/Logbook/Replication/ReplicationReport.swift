/// What a replication session did: one catch-up, or one step of following. Encoded by its
/// property names (`logbook sync --json`).
public struct ReplicationReport: Sendable, Equatable, Encodable {
    /// Requests answered with batches.
    public var pulls = 0
    /// Stored bytes received.
    public var bytes = 0
    /// Changes received.
    public var received = 0
    /// Changes the CRDT accepted (the rest it had already).
    public var accepted = 0
    /// The peer's durable high watermark at the last answer.
    public var peerDurableOffset: UInt64 = 0
    /// The cursor afterwards.
    public var cursor: UInt64 = 0
    /// Snapshots taken because the cursor was below the peer's log start, or because the
    /// peer no longer held our position.
    public var snapshots = 0
    /// States taken to start from, because this node had never pulled from the peer
    /// (`ReplicationSession.Options.bootstrapsFromState`).
    public var bootstraps = 0
    /// Times the peer answered that it does not hold our position (diverged): its log was
    /// restored from an older copy, or another log answers at its address.
    public var divergences = 0
    /// Times the pull restarted from 0 because this log no longer holds what the cursor's
    /// merges wrote (restored from an older copy while `peers.json` was not).
    public var restarts = 0
    /// Why the last restart happened.
    public var restartReason: String?

    /// An empty report.
    public init() {}
}
