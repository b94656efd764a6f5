import AsyncHTTPClient
import Logbook

/// Syncs a Logbook with one stream on a hub (`logbook hub serve`) over HTTP: pushes this
/// node's log — its own writes and what it got from mesh peers, never what it pulled from
/// the hub — and pulls the hub's changes. Both cursors are durable in the `PeerLedger`,
/// under the stream's URL (`http://HUB/streams/S`), so a restart resumes where it stopped.
///
/// The pull is a `ReplicationSession` that remembers where the hub's changes went in this
/// log (`PeerLedger.echoes`); the push is a `PushSession` that leaves those ranges out.
/// See both for why a crash or a lost answer loses nothing.
public struct HubLink: Sendable {
    /// What one round did.
    public struct Report: Sendable, Equatable, Encodable, CustomStringConvertible {
        /// The push.
        public var pushed = PushReport()
        /// The pull.
        public var pulled = ReplicationReport()
        /// Tombstone GC through the hub, when the round ran it.
        public var collection: TombstoneCollectionReport?

        /// Two lines: what went each way; one more for each cursor that was restarted.
        public var description: String {
            var lines = """
                pushed \(pushed.sent) changes in \(pushed.pushes) bodies; the hub took \(pushed.accepted); \
                \(pushed.echoesSkipped) pulled from it left out
                pulled \(pulled.received) changes in \(pulled.pulls) bodies (\(pulled.bytes) bytes); \
                accepted \(pulled.accepted)
                """
            if let reason = pushed.restartReason {
                lines += "\npush restarted, state pushed instead: \(reason)"
            }
            if let reason = pulled.restartReason {
                lines += "\npull cursor's merges not held by this log, pulled from the start: "
                lines += reason
            }
            return lines
        }
    }

    let logbook: Logbook
    let ledger: PeerLedger
    /// The HTTP side, to the stream's URL: timeouts, body bounds.
    public var transport: HTTPReplicationTransport
    /// The pull's options; `remembersEchoes` is what keeps pushes free of echoes.
    public var pullOptions = ReplicationSession.Options()
    /// The push's options.
    public var pushOptions = PushSession.Options()

    /// The URL of `stream` on the hub at `hub` (e.g. `http://127.0.0.1:7400`).
    public static func streamURL(hub: String, stream: String) -> String {
        (hub.hasSuffix("/") ? String(hub.dropLast()) : hub) + "/streams/" + stream
    }

    /// A link between `logbook` and `stream` on the hub at `hub`, with a token that grants
    /// the stream. Throws when the stream's name breaks `HubStreamName`'s rule.
    public init(
        logbook: Logbook, hub: String, stream: String, token: String, ledger: PeerLedger,
        client: HTTPClient = .shared
    ) throws {
        guard HubStreamName.isValid(stream) else {
            throw ReplicationError(
                message: "stream name \(stream) must be \(HubStreamName.rule)")
        }
        self.logbook = logbook
        self.ledger = ledger
        transport = HTTPReplicationTransport(
            peer: Self.streamURL(hub: hub, stream: stream), token: token, client: client)
        // A hub answers with whole versions: one may hold up to a push's 16 MiB.
        transport.batchBodySlack = 40 << 20
    }

    /// The stream's URL: the key of both cursors in the ledger.
    public var peerName: String { transport.peerName }

    /// The pulling session.
    public var pullSession: ReplicationSession {
        var options = pullOptions
        options.remembersEchoes = true
        // The hub stores state, not history: its changes from 0 are that state already.
        options.bootstrapsFromState = false
        return ReplicationSession(
            logbook: logbook, ledger: ledger, transport: transport, options: options)
    }

    /// The pushing session.
    public var pushSession: PushSession {
        PushSession(logbook: logbook, ledger: ledger, transport: transport, options: pushOptions)
    }

    /// One round: acknowledges (which registers this node with the stream before it pushes
    /// anything), pushes everything durable here, pulls until the cursor reaches the hub's
    /// version, pushes again (nothing but the cursor moves: that settles the pull, see
    /// `PeerLedger+PushSettling`) and acknowledges. With `collecting`, then runs tombstone
    /// GC through the hub (`collect`) and acknowledges how far it got. The handlers see
    /// every push and every pull (for progress).
    public func sync(
        collecting: TombstoneCollectionOptions? = nil, onPush: (PushReport) -> Void = { _ in },
        onPull: (ReplicationReport) -> Void = { _ in }
    ) async throws -> Report {
        var report = Report()
        let (push, pull) = (pushSession, pullSession)
        let registered = try await pull.acknowledgeCursor()
        report.pushed = try await push.pushAll(onStep: onPush)
        report.pulled = try await pull.catchUp(onStep: onPull)
        if let reason = registered.restartReason {  // restarted before the pull began
            report.pulled.restarts += registered.restarts
            report.pulled.restartReason = reason
        }
        report.pushed.add(try await push.pushAll(onStep: onPush))
        try await pull.acknowledgeCursor()
        if let collecting {
            report.collection = try await collect(collecting)
            try await pull.acknowledgeCursor()
        }
        return report
    }

    /// Tombstone GC through the hub: collects what the hub lists as collectable
    /// (`HubCollectionSession`). The hub hears how far it got in the next acknowledgement.
    public func collect(_ options: TombstoneCollectionOptions = TombstoneCollectionOptions())
        async throws -> TombstoneCollectionReport
    {
        try await HubCollectionSession(
            logbook: logbook, ledger: ledger, transport: transport, options: options
        ).run()
    }

    /// Pushes and pulls at once until the task is cancelled, each retrying after failures
    /// (`PushSession.run`, `ReplicationSession.run`); the pull's long polls wait up to
    /// `wait`. Nothing is pushed before an acknowledgement has registered this node with the
    /// stream (retried as the pull is), so the hub's GC never misses a node that pushed.
    /// The handlers see every step and every failure.
    public func run(
        wait: Duration = .milliseconds(500),
        onPush: @escaping @Sendable (Result<PushReport, any Error>) -> Void = { _ in },
        onPull: @escaping @Sendable (Result<ReplicationReport, any Error>) -> Void = { _ in }
    ) async {
        let (push, pull) = (pushSession, pullSession)
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await pull.acknowledgeCursor()
                break
            } catch {
                onPull(.failure(error))
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await push.run(onReport: onPush) }
            group.addTask { await pull.run(wait: wait, onReport: onPull) }
        }
    }
}
