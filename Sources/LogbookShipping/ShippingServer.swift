import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logbook
import LogbookCRDT
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// Serves a Logbook to its peers over HTTP (Hummingbird).
///
/// - `GET /log?from=OFFSET&max_bytes=N[&wait_ms=W]`: stored batches verbatim, from the batch
///   holding OFFSET, below the durable high watermark, at most N bytes (at least one batch);
///   headers `Logbook-Node-Id`, `Logbook-Durable-Offset`, `Logbook-Start-Offset`,
///   `Logbook-Next-Offset`, `Logbook-Batch-Count`, `Logbook-Epoch`. Below the log start: 410
///   "snapshot required". With `epoch=E` (the `Logbook-Epoch` of the previous answer) the
///   follower states the position it holds; one this log does not hold, or OFFSET past the
///   durable end, is 409 "diverged" and the follower resyncs from the snapshot. With `wait_ms`, a request with nothing durable at or after OFFSET yet is held
///   up to W ms (a long poll, as a Kafka follower's fetch wait) and answered as soon as
///   something is.
/// - `GET /snapshot[?page_changes=N&after=ID][&format=batches]`: the live state as crdt-lite
///   JSON (`Logbook.snapshotChanges()`: `getChangesSince(0)` plus a deletion per fenced
///   record), or with `format=batches` as shipped batches (`StatePageBatches`); with
///   `page_changes`, one page of whole records in id order after ID, and
///   `Logbook-Snapshot-After` (percent-encoded) naming where the next page starts.
/// - `POST /ack` with `{"node": ID, "offset": N, "epoch": P, "log_end": E,
///   "collected_below": C}`: the peer has merged our log below N, the record before N
///   written in epoch P; its own durable log end was E and its GC frontier C (all optional
///   but N; tombstone GC needs E and C, see docs/maintenance.md). A position this log does
///   not hold (N past the durable end, or the record before it in another epoch) is 409
///   and stored nowhere.
/// - `GET /changes?since=V[&format=rust|swift][&limit=N]`, `POST /changes`: crdt-lite JSON
///   changes (an array or JSON lines), `getChangesSince` and `mergeChanges` semantics; with
///   `limit`, a page of about N changes and `Logbook-Next-Since` naming the version to ask
///   `since` next (absent on the last page). Every answer names its form
///   (`Logbook-Change-Format`; `Accept` may ask for one too, `ChangeJSONMessages.format`)
///   and carries `Logbook-Clock`, the `since` to ask once every page is merged.
/// - `GET /`: a status page; `GET /status`: node, offsets and state digest as JSON;
///   `GET /metrics`: Prometheus text from `ShippingConfiguration.metricsRegistry`.
///
/// Every request needs `Authorization: Bearer <token>`; bodies and responses are bounded;
/// a malformed body gets a 4xx with the reason and changes nothing. The status page, the
/// status and the metrics are also served without a token on the admin listener
/// (`adminApplication`, `ShippingConfiguration.adminPort`), bound to loopback by default,
/// for browsers and scrapers.
public struct ShippingServer: Sendable {
    let logbook: Logbook
    let configuration: ShippingConfiguration
    let ledger: PeerLedger
    let source: ReplicationSource
    let metrics: ShippingMetrics
    /// Bounds the answers that may be large (`LargeAnswerSlots`).
    let largeAnswers: LargeAnswerSlots

    /// `GET /log` long polls waiting now for a record to become durable
    /// (`logbook_log_polls_waiting` in `/metrics`).
    public var pollsWaiting: Int { metrics.pollsWaiting }
    /// Large answers being built or sent now (`LargeAnswerSlots`; at most
    /// `ConnectionLimits.largeAnswersMax`).
    public var largeAnswersInUse: Int { largeAnswers.inUse }
    /// The peers' lag over the last minutes, drawn on the status page.
    public let lagHistory: PeerLagHistory

    /// A server for `logbook`, recording acknowledgements in `ledger`.
    public init(
        logbook: Logbook, configuration: ShippingConfiguration, ledger: PeerLedger,
        lagHistory: PeerLagHistory = PeerLagHistory()
    ) {
        self.logbook = logbook
        self.configuration = configuration
        self.ledger = ledger
        self.lagHistory = lagHistory
        source = ReplicationSource(logbook: logbook, ledger: ledger)
        let metrics = ShippingMetrics(registry: configuration.metricsRegistry)
        self.metrics = metrics
        largeAnswers = configuration.connections.largeAnswerSlots {
            metrics.refusedLargeAnswer()
        }
    }

    /// Notes each peer's lag now (`PeerLagHistory`); a serving node does every few seconds.
    public func sampleLag() {
        lagHistory.record(ledger: ledger.all, logEnd: logbook.nextOffset)
    }

    /// The Hummingbird application; `onRunning` receives the port it listens on. Throws when
    /// the TLS files cannot be read.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws -> some ApplicationProtocol
    {
        let router = Router()
        // Request counts and latencies by route and status, refusals included.
        router.add(middleware: MetricsMiddleware())
        // Probes come before the token: an orchestrator's liveness and readiness checks
        // carry none, and they say nothing of the data.
        addProbes(to: router)
        router.add(middleware: TokenMiddleware(token: configuration.token, metrics: metrics))
        router.get("log") { request, _ in try await self.log(request) }
        router.get("snapshot") { request, _ in try await self.snapshot(request) }
        router.post("ack") { request, _ in try await self.acknowledge(request) }
        router.get("changes") { request, _ in try await self.changes(request) }
        router.post("changes") { request, _ in try await self.mergeChanges(request) }
        router.get("metrics") { _, _ in self.metricsText() }
        router.get("status") { _, _ in self.statusJSON() }
        router.get("/") { _, _ in self.statusPage() }
        var server = configuration.connections.http1()
        if let files = configuration.tls {
            let chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem)))
            tls.minimumTLSVersion = .tlsv12
            server = try .tls(server, tlsConfiguration: tls)
        }
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) })
    }

    private func log(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let from = query.get("from", as: UInt64.self) else {
            throw HTTPError(.badRequest, message: "from must be an offset (an unsigned integer)")
        }
        let asked = try query.positive("max_bytes") ?? configuration.responseBytesMax
        if let milliseconds = try query.milliseconds("wait_ms") {
            // A position past the durable end is answered at once (409), not after a wait.
            if from <= logbook.durableOffset {
                await waitForDurable(beyond: from, upTo: .milliseconds(milliseconds))
            }
        }
        let epoch = try query.unsigned("epoch")
        let answer: BatchAnswer
        do {
            answer = try source.batches(
                from: from, epoch: epoch, maxBytes: min(asked, configuration.responseBytesMax))
        } catch {
            throw HTTPError(.internalServerError, message: "\(error)")
        }
        let batches: FetchedBatches
        switch answer {
        case .batches(let fetched): batches = fetched
        case .snapshotRequired(let reason):
            throw HTTPError(.gone, message: "snapshot required: \(reason)")
        case .diverged(let reason):
            metrics.refused()
            throw HTTPError(.conflict, message: "diverged: \(reason)")
        }
        metrics.shipped(bytes: batches.bytes.count, batches: batches.batchCount)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.logbookNodeId] = String(logbook.nodeId)
        headers[.logbookDurableOffset] = String(
            batches.durableOffset)
        headers[.logbookStartOffset] = String(
            batches.startOffset ?? 0)
        headers[.logbookNextOffset] = String(batches.nextOffset)
        headers[.logbookBatchCount] = String(batches.batchCount)
        headers[.logbookEpoch] = String(batches.epoch ?? 0)
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: batches.bytes)))
    }

    /// Returns when the durable high watermark passes `offset`, after `wait` (at most
    /// `logWaitMax`), when the task is cancelled, or when the server shuts down gracefully
    /// (the poll is answered at once, so shutting down waits for no poll). Checks every
    /// millisecond: a follower's lag gains at most that, and an idle follower costs a
    /// thousand cheap reads a second.
    private func waitForDurable(beyond offset: UInt64, upTo wait: Duration) async {
        metrics.pollWaiting(1)
        defer { metrics.pollWaiting(-1) }
        let deadline = ContinuousClock.now + min(wait, configuration.logWaitMax)
        while logbook.durableOffset <= offset && ContinuousClock.now < deadline
            && !Task.isShuttingDownGracefully
        {
            do { try await Task.sleep(for: .milliseconds(1)) } catch { return }
        }
    }

    /// The state as crdt-lite JSON, or with `format=batches` as shipped batches
    /// (`StatePageBatches`), with `Logbook-Next-Offset`: the durable offset read before the
    /// state, so every change below it is in the body (later ones may be too; merging them
    /// again changes nothing).
    private func snapshot(_ request: Request) async throws -> Response {
        let pageChanges = try request.uri.queryParameters.positive("page_changes")
        return try await largeAnswers.answer(changesAsked: pageChanges) {
            try await snapshot(request, pageChanges: pageChanges)
        }
    }

    private func snapshot(_ request: Request, pageChanges: Int?) async throws -> Response {
        let durable = logbook.durableOffset
        let query = request.uri.queryParameters
        guard let pageChanges else {
            // Unpaged, for followers from before pages.
            let logbook = logbook
            // `snapshotChanges` gives them in sync order already.
            let changes = try await Self.offThePool { logbook.snapshotChanges() }
            try await makeGatheredDurable()
            var response = try await stateResponse(changes, request, sortingJSON: false)
            addPosition(covering: durable, epoch: source.epoch(before: durable), to: &response)
            return response
        }
        let (source, after) = (source, query.get("after"))  // already percent-decoded
        let changesMax = min(pageChanges, configuration.changesPerResponseMax)
        let page = try await Self.offThePool {
            source.statePage(after: after, changesMax: changesMax)
        }
        try await makeGatheredDurable()
        // The page comes unordered; crdt-lite clients get `getChangesSince`'s order.
        var response = try await stateResponse(page.changes, request, sortingJSON: true)
        if let next = page.nextAfter {
            response.headers[.logbookSnapshotAfter] =
                next.addingPercentEncoding(withAllowedCharacters: Self.unreservedASCII) ?? ""
        }
        addPosition(covering: page.covered, epoch: page.epoch ?? 0, to: &response)
        return response
    }

    /// The position a snapshot leaves its receiver at: it covers every offset below
    /// `covered`, in `epoch` (of the record before it), from this node.
    private func addPosition(covering covered: UInt64, epoch: UInt64, to response: inout Response) {
        response.headers[.logbookNextOffset] = String(covered)
        response.headers[.logbookNodeId] = String(logbook.nodeId)
        response.headers[.logbookEpoch] = String(epoch)
    }

    private func changes(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let asked = query.get("since", as: UInt64.self) else {
            throw HTTPError(.badRequest, message: "since must be a version (an unsigned integer)")
        }
        let limit = try query.positive("limit")
        let logbook = logbook
        return try await largeAnswers.answer(changesAsked: limit) {
            // Read before the changes are gathered: a change made in between comes again next
            // time rather than never.
            let clock = logbook.clock().currentTime()
            let since = SinceReset.since(answering: asked, clock: clock)
            var response: Response
            if let limit {
                let changesMax = min(limit, configuration.changesPerResponseMax)
                let page = try await Self.offThePool {
                    logbook.changesPage(since: since, changesMax: changesMax)
                }
                try await makeGatheredDurable()
                response = try jsonChanges(page.changes, request)
                if let next = page.nextSince {
                    response.headers[.logbookNextSince] = String(next)
                }
            } else {
                // Built a window at a time: the answer holds one window's changes, not all.
                let (state, windows) = try await Self.offThePool {
                    let state = logbook.changedState(since: since)
                    return (state, state.windowEnds(changesMax: Self.windowChanges))
                }
                try await makeGatheredDurable()
                response = try ChangeJSONMessages.windowedResponse(
                    state, windows: windows, request: request,
                    changesMax: configuration.changesPerResponseMax,
                    build: { try await Self.offThePool($0) })
            }
            response.headers[.logbookClock] = String(clock)
            SinceReset.mark(&response, asked: asked, answeredFrom: since)
            return response
        }
    }

    /// Returns once what a read just gathered from memory is durable, so an answer never
    /// holds a change a crash would take back (docs/shipping.md#what-is-served); 503 when
    /// this node's writes have failed or the sync fails, serving nothing.
    private func makeGatheredDurable() async throws {
        do { try await logbook.makeAppendedDurable() } catch {
            throw HTTPError(
                .serviceUnavailable,
                message: "this node cannot make its state durable, so serves none of it: "
                    + "\(error)")
        }
    }

    private func stateResponse(
        _ changes: [Change<String, String, Value>], _ request: Request, sortingJSON: Bool
    ) async throws -> Response {
        try await StatePageResponse.response(
            changes, request: request, changesMax: configuration.changesPerResponseMax,
            sortingJSON: sortingJSON)
    }

    private func jsonChanges(_ changes: [Change<String, String, Value>], _ request: Request) throws
        -> Response
    {
        try ChangeJSONMessages.response(
            changes, request: request, changesMax: configuration.changesPerResponseMax)
    }

    /// Runs O(state) work (building and sorting a large answer's changes) on NIO's
    /// blocking-work threads: on the cooperative pool, two such answers at once would hold
    /// every one of its threads (one per core) and stall every other request until done.
    static func offThePool<Result: Sendable>(
        _ work: @escaping @Sendable () -> Result
    ) async throws -> Result {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// RFC 3986's unreserved characters: all a percent-encoded header value keeps as is.
    package static let unreservedASCII = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private func mergeChanges(_ request: Request) async throws -> Response {
        let data = try await body(of: request)  // counts its own refusal
        let changes: [Change<String, String, Value>]
        do {
            changes = try ChangeJSONMessages.changes(in: data, of: request)
        } catch {
            metrics.refused()
            throw error
        }
        let accepted: Int
        do { accepted = try await logbook.mergeLocated(changes).acceptedCount } catch {
            // A change over a limit, or versions that would exhaust the clock: the client's
            // input, refused before anything was merged; the node stays writable.
            if error.code == .invalidChange || error.code == .limitExceeded {
                metrics.refused()
                throw HTTPError(.badRequest, message: "\(error)")
            }
            throw HTTPError(.internalServerError, message: "\(error)")
        }
        metrics.merged(accepted)
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(
                byteBuffer: ByteBuffer(
                    string: #"{"received": \#(changes.count), "accepted": \#(accepted)}"#)))
    }

    private func acknowledge(_ request: Request) async throws -> Response {
        let data = try await body(of: request)  // counts its own refusal
        let ack: ReplicationAcknowledgement
        do { ack = try AcknowledgementMessage.decode(data) } catch {
            metrics.refused()
            throw error
        }
        do {
            try source.accept(ack)
        } catch let refusal as ReplicationSource.Refusal {
            metrics.refused()
            switch refusal {
            case .notAPeer(let message): throw HTTPError(.badRequest, message: message)
            case .unregistered(let message): throw HTTPError(.forbidden, message: message)
            case .diverged(let message): throw HTTPError(.conflict, message: message)
            }
        } catch {
            throw HTTPError(.internalServerError, message: "\(error)")
        }
        return Response(status: .noContent)
    }

    /// The request body, refused past `requestBytesMax`.
    private func body(of request: Request) async throws -> Data {
        do {
            return try await ChangeJSONMessages.body(
                of: request, bytesMax: configuration.requestBytesMax)
        } catch {
            metrics.refused()
            throw error
        }
    }

}

/// Refuses every request without the node's bearer token (401).
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let metrics: ShippingMetrics

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard BearerToken.matches(request.headers[.authorization], token: token) else {
            metrics.refused()
            throw HTTPError(.unauthorized, message: "a valid bearer token is required")
        }
        metrics.request()
        return try await next(request, context)
    }
}
