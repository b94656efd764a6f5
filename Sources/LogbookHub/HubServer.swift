import Foundation
import HTTPTypes
import Hummingbird
import LogbookCRDT
import LogbookShipping
import NIOCore
import Prometheus

/// What a hub process serves, over HTTP (Hummingbird). It keeps no state of its own: every
/// answer comes from the database, so any number of hub processes may serve one database
/// behind any load balancer.
///
/// - `GET /streams/S/changes?since=V[&limit=N][&format=rust|swift]`: the stream's changes
///   with a hub version above V as crdt-lite JSON, each carrying its hub version as
///   `local_db_version`; headers `Logbook-Hub-Version` and `Logbook-Clock` (the stream's
///   version: the `since` to ask next), `Logbook-Change-Format`, and, when more remain,
///   `Logbook-Next-Since`. 410 when tombstone GC collected below V.
/// - `POST /streams/S/changes`: crdt-lite JSON changes (an array or JSON lines), merged
///   with crdt-lite's rules in one transaction; answered after the commit with
///   `{"received", "accepted", "hub_version"}`.
/// - `GET /healthz`: the process is up. `GET /readyz`: the database answers and holds this
///   build's schema (503 with the reason otherwise). `GET /metrics`: Prometheus text from
///   `Configuration.metricsRegistry` (merges, pushed, accepted and pulled changes, merge
///   latency, requests by route), 404 without one.
///
/// A crdt-lite client uses `https://HUB/streams/S` as it would a node's base URL. Every
/// stream request needs `Authorization: Bearer TOKEN` with a token that names the stream
/// (401 otherwise, without saying whether the stream exists); a read-only token may not
/// post (403). Bodies and answers are bounded; a malformed or hostile body gets a 4xx with
/// the reason and merges nothing.
public struct HubServer: Sendable {
    /// Where and how much.
    public struct Configuration: Sendable {
        /// The address to listen on.
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one.
        public var port = 0
        /// The largest request body, in bytes (413 above it).
        public var requestBytesMax = 16 << 20
        /// The most changes one answer carries; a read without `limit` that would exceed
        /// it is refused (413) and should page.
        public var changesPerResponseMax = 200_000
        /// The largest answer to `GET log`, in stored bytes (whole versions: at least one).
        public var responseBytesMax = 4 << 20
        /// How often a waiting long poll reads again even when no merge was heard of (a
        /// notification lost while the database restarted costs at most this).
        public var unheardMergeInterval = Duration.seconds(1)
        /// The longest a `GET log` long poll waits.
        public var logWaitMax = Duration.seconds(30)
        /// How long a streamed follow (`GET log?…&frames=1`) lasts before the hub ends it
        /// between frames; its follower then asks again, as after any answer.
        public var followStreamMax = Duration.seconds(300)
        /// Where `GET /metrics` reads its Prometheus text; without one it answers 404.
        public var metricsRegistry: PrometheusCollectorRegistry?
        /// The longest a request waits for the database (a connection and its statements)
        /// before it is answered 503; the pool itself would wait for as long as the database
        /// is down.
        public var databaseWaitMax = HubStore.databaseWaitDefault
        /// Connections open at once and how long an idle one stays (`ConnectionLimits`;
        /// 4,096 here, since every node of a stream keeps one or two, and 75 s).
        public var connections = {
            var limits = ConnectionLimits()
            limits.connectionsMax = 4096
            return limits
        }()
        /// Tokens not seen lately looked up in the database at once; one more is answered
        /// 503 with `Retry-After: 1` (`HubGrantCache.newLookupsMax`). Tokens in use are
        /// answered from memory and never wait for these.
        public var newTokenLookupsMax = 8
        /// And at most this many a second on average (after a quiet spell, the burst above):
        /// a flood of made-up tokens costs the database this much, while a thousand nodes
        /// reconnecting with tokens of their own are all in within about ten seconds.
        public var newTokenLookupsPerSecond = 100.0
        /// Scheduled tombstone GC (`HubProcess` runs it beside the server).
        public var collection = HubCollectionSchedule()

        /// The defaults: loopback, a free port.
        public init() {}
    }

    let store: HubStore
    let configuration: Configuration
    /// Wakes long polls; runs beside the server.
    let notifier: HubChangeNotifier
    /// Shared answers.
    let cache = HubReadCache()
    /// Grants found in the database.
    let grants: HubGrantCache
    /// Bounds the whole answers and large pages of `GET changes` (`LargeAnswerSlots`).
    let largeAnswers: LargeAnswerSlots

    /// A server answering from `store`.
    public init(store: HubStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        let metrics = store.metrics
        largeAnswers = configuration.connections.largeAnswerSlots {
            metrics.refusedLargeAnswers.increment()
        }
        grants = HubGrantCache(
            newLookupsMax: configuration.newTokenLookupsMax,
            newLookupsPerSecond: configuration.newTokenLookupsPerSecond)
        notifier = HubChangeNotifier(
            client: store.client, logger: store.logger,
            pollWhileListening: configuration.unheardMergeInterval)
    }

    /// The Hummingbird application; `onRunning` receives the port it listens on.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = Router()
        router.add(middleware: MetricsMiddleware())
        router.get("healthz") { _, _ in "ok\n" }
        router.get("readyz") { _, _ in try await self.readiness() }
        router.get("metrics") { _, _ in self.metricsText() }
        router.get("streams/:stream/changes") { request, context in
            try await self.changes(request, stream: try self.streamName(context))
        }
        router.post("streams/:stream/changes") { request, context in
            try await self.merge(request, stream: try self.streamName(context))
        }
        addReplicationRoutes(to: router)
        return Application(
            router: router, server: configuration.connections.http1(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            services: [notifier],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) })
    }

    /// Starts the server in a task and returns once it listens.
    public func start() async throws -> RunningServer {
        try await RunningServer.start(port: configuration.port, tls: false) {
            application(onRunning: $0)
        }
    }

    // MARK: Handlers

    private func readiness() async throws -> Response {
        do {
            // Bounded like every request: a probe must hear "not ready", not wait for as long
            // as the database is down.
            try await DatabaseDeadline.run(within: configuration.databaseWaitMax) {
                [store] in try await store.checkSchema()
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ready\n")))
        } catch {
            return Response(
                status: .serviceUnavailable,
                body: .init(byteBuffer: ByteBuffer(string: "not ready: \(error)\n")))
        }
    }

    private func metricsText() -> Response {
        guard let registry = configuration.metricsRegistry else {
            return Response(
                status: .notFound,
                body: .init(byteBuffer: ByteBuffer(string: "metrics are not enabled here\n")))
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    private func changes(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: false)
        let query = request.uri.queryParameters
        guard let asked = query.get("since", as: UInt64.self) else {
            throw HTTPError(.badRequest, message: "since must be a version (an unsigned integer)")
        }
        let limit = try query.positive("limit")
        // A slot taken before anything is read, kept until the answer is sent.
        return try await largeAnswers.answer(changesAsked: limit) {
            var (changes, page) = try await changes(in: stream, since: asked, limit: limit)
            // The stream's version is known once read: a `since` past it is read again from 0
            // (a database restored from an older backup).
            let since = SinceReset.since(answering: asked, clock: page.hubVersion)
            if since != asked {
                (changes, page) = try await self.changes(in: stream, since: since, limit: limit)
            }
            var response = try ChangeJSONMessages.response(
                changes, request: request, changesMax: configuration.changesPerResponseMax)
            response.headers[HubHeaders.hubVersion] = String(page.hubVersion)
            response.headers[.logbookClock] = String(page.hubVersion)
            if !page.isComplete { response.headers[.logbookNextSince] = String(page.nextSince) }
            SinceReset.mark(&response, asked: asked, answeredFrom: since)
            return response
        }
    }

    /// The changes of `stream` since `since`: one page of about `limit`, or without a limit
    /// all of them (crdt-lite's `getChangesSince`), read in pages so one bound holds.
    private func changes(in stream: HubStream, since: UInt64, limit: Int?) async throws -> (
        [Change<String, String, Value>], HubPage
    ) {
        if let limit {
            let page = try await mapped {
                try await store.changes(
                    in: stream, since: since, limit: min(limit, configuration.changesPerResponseMax)
                )
            }
            return (page.changes, page)
        }
        var changes: [Change<String, String, Value>] = []
        var page: HubPage
        var cursor = since
        repeat {
            page = try await mapped { [cursor] in
                try await store.changes(in: stream, since: cursor, limit: 10_000)
            }
            changes += page.changes
            cursor = page.nextSince
            guard changes.count <= configuration.changesPerResponseMax else {
                throw HTTPError(
                    .contentTooLarge,
                    message:
                        "over \(configuration.changesPerResponseMax) changes since \(since); page with limit=N"
                )
            }
        } while !page.isComplete
        return (changes, page)
    }

    private func merge(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: true)
        let changes = try ChangeJSONMessages.changes(
            in: try await ChangeJSONMessages.body(
                of: request, bytesMax: configuration.requestBytesMax),
            of: request)
        let report = try await mapped { try await store.merge(changes, into: stream) }
        return Self.receipt(report)
    }

    // MARK: Access

    func streamName(_ context: BasicRequestContext) throws -> String {
        guard let name = context.parameters.get("stream") else {
            throw HTTPError(.notFound, message: "no stream in the path")
        }
        return name
    }

    /// The stream the request's token grants; 401 unless it names the stream, 403 when it
    /// is read-only and the request writes.
    func authorize(_ request: Request, stream name: String, write: Bool) async throws
        -> HubStream
    {
        try await authorize(token: Self.bearerToken(of: request), stream: name, write: write)
    }

    /// The request's bearer token, nil when it has none.
    static func bearerToken(of request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            return nil
        }
        return String(header.dropFirst(7))
    }

    /// `authorize(_:stream:write:)` for a token already taken from its request: a streamed
    /// follow checks it again before each frame without reading the headers again.
    func authorize(token: String?, stream name: String, write: Bool) async throws -> HubStream {
        guard let token, let granted = try await grant(token: token, stream: name) else {
            throw HTTPError(
                .unauthorized, message: "a bearer token that names this stream is required")
        }
        if write && granted.grant != .readWrite {
            throw HTTPError(.forbidden, message: "this token may read the stream, not write it")
        }
        return granted.stream
    }

    /// The grant `token` has on stream `name`: from memory when fresh (no database call, so
    /// no deadline to arm: a follower's frame costs no timer here), else looked up. A grant
    /// about to run out is still answered from memory while one lookup refreshes it.
    private func grant(token: String, stream name: String) async throws -> HubGrantCache.Found? {
        // A token of another form was never issued: refused before it takes a lookup slot.
        guard HubStore.isWellFormed(token: token) else { return nil }
        if let (found, refresh) = grants.held(token: token, stream: name) {
            if refresh { Task { _ = try? await lookUpGrant(token: token, stream: name) } }
            return found
        }
        return try await lookUpGrant(token: token, stream: name)
    }

    /// Looks `token`'s grant on `name` up in the database, once for every request asking
    /// meanwhile; the lookup carries the database bound, so none of them waits longer.
    private func lookUpGrant(token: String, stream name: String) async throws
        -> HubGrantCache.Found?
    {
        let limit = configuration.databaseWaitMax
        return try await mappingErrors {
            try await grants.lookUp(token: token, stream: name) { [store] in
                try await DatabaseDeadline.run(within: limit) {
                    try await store.grant(for: token, stream: name)
                }
            }
        }
    }

    /// Runs a store call within the database bound, turning its errors into HTTP answers
    /// that say what to do.
    func mapped<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
        async throws -> Result
    {
        try await mappingErrors {
            try await DatabaseDeadline.run(within: configuration.databaseWaitMax, body)
        }
    }

    /// Runs `body` (bounded by its caller), turning its errors into HTTP answers.
    func mappingErrors<Result: Sendable>(_ body: () async throws -> Result) async throws
        -> Result
    {
        do {
            return try await body()
        } catch let error as DatabaseDeadline.Exceeded {
            throw HTTPError(.serviceUnavailable, message: "\(error); try again")
        } catch let error as HubGrantCache.Busy {
            throw HTTPError(
                .serviceUnavailable, headers: [.retryAfter: "1"], message: "\(error)")
        } catch let error as HubError {
            switch error {
            case .invalidChange, .badStreamName, .badRequest:
                throw HTTPError(.badRequest, message: "\(error)")
            case .tooLarge: throw HTTPError(.contentTooLarge, message: "\(error)")
            case .unknownStream: throw HTTPError(.notFound, message: "\(error)")
            case .snapshotRequired: throw HTTPError(.gone, message: "\(error)")
            case .diverged, .epochChanged, .pushesLost:
                throw HTTPError(.conflict, message: "\(error)")
            case .schemaMissing, .schemaTooNew, .database, .badDatabaseURL:
                throw HTTPError(.serviceUnavailable, message: "\(error)")
            case .corruptRow: throw HTTPError(.internalServerError, message: "\(error)")
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            // PostgreSQL unreachable or restarting: the client retries; nothing was acknowledged.
            throw HTTPError(.serviceUnavailable, message: "the database did not answer: \(error)")
        }
    }
}

/// The hub's response headers.
enum HubHeaders {
    // The names are constants known to be valid header names.
    static let hubVersion = HTTPField.Name("Logbook-Hub-Version") ?? .contentType
}
