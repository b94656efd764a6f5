import AsyncHTTPClient
import Logbook

/// Pulls a peer's log into a Logbook over HTTP: a `ReplicationSession` over an
/// `HTTPReplicationTransport`, configured in one place. See `ReplicationSession` for what a
/// catch-up and following do, and why a crash or a dropped connection loses nothing.
public struct PeerPuller: Sendable {
    /// Why a pull failed.
    public typealias Failure = ReplicationError
    /// What one catch-up did.
    public typealias Report = ReplicationReport

    let logbook: Logbook
    let ledger: PeerLedger
    /// The HTTP side: timeouts, the largest snapshot page.
    public var transport: HTTPReplicationTransport
    /// The session's side: bytes per pull, snapshot page size, acknowledgement interval.
    public var options = ReplicationSession.Options()

    /// A puller from the node at `peer` (e.g. `http://127.0.0.1:7000`) into `logbook`.
    public init(
        logbook: Logbook, peer: String, token: String, ledger: PeerLedger,
        client: HTTPClient = .shared
    ) {
        self.logbook = logbook
        self.ledger = ledger
        transport = HTTPReplicationTransport(peer: peer, token: token, client: client)
    }

    /// The session this puller runs.
    public var session: ReplicationSession {
        ReplicationSession(logbook: logbook, ledger: ledger, transport: transport, options: options)
    }

    /// Pulls until the cursor reaches the peer's durable high watermark; see
    /// `ReplicationSession.catchUp`.
    public func catchUp(onPull: (Report) -> Void = { _ in }) async throws -> Report {
        try await session.catchUp(onStep: onPull)
    }

    /// Follows the peer with long polls until the task is cancelled or a pull fails; see
    /// `ReplicationSession.follow`.
    public func follow(
        wait: Duration = .milliseconds(500), onPull: (Report) -> Void = { _ in }
    ) async throws {
        try await session.follow(wait: wait, onStep: onPull)
    }

    /// Follows the peer until the task is cancelled, backing off after failures; see
    /// `ReplicationSession.run`.
    public func run(
        interval: Duration = .milliseconds(500),
        onReport: @Sendable (Result<Report, any Error>) -> Void = { _ in }
    ) async {
        await session.run(wait: interval, onReport: onReport)
    }
}
