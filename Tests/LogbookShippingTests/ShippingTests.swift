import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import NIOCore
import NIOHTTP1
import Testing

/// A node for tests: a Logbook in a temporary directory, its ledger, and its server on a
/// loopback port.
final class TestNode: @unchecked Sendable {
    // @unchecked: set up once, then used from one test task.
    let directory: TemporaryDirectory
    let logbook: Logbook
    let ledger: PeerLedger
    let token = "secret-token"
    var port = 0
    private var server: RunningServer?
    /// The server's counts (`pollsWaiting`), once started.
    private(set) var shippingServer: ShippingServer?

    /// `prepare` runs on the directory (new and empty unless given) before the Logbook
    /// opens it.
    init(
        node: NodeId, at directory: TemporaryDirectory = TemporaryDirectory(),
        preparing prepare: (String) throws -> Void = { _ in }
    ) throws {
        self.directory = directory
        try prepare(directory.path)
        logbook = try Logbook.open(directory: directory.path, nodeId: node)
        ledger = try PeerLedger(directory: directory.path)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts serving on `port` (0: any free one), holding a `/log?wait_ms=` request open
    /// for at most `logWaitMax`.
    func start(
        port requested: Int = 0, logWaitMax: Duration = .seconds(30),
        connections: ConnectionLimits = ConnectionLimits()
    ) async throws {
        var configuration = ShippingConfiguration(token: token)
        configuration.port = requested
        configuration.logWaitMax = logWaitMax
        configuration.connections = connections
        let shipping = ShippingServer(
            logbook: logbook, configuration: configuration, ledger: ledger)
        let running = try await shipping.start()
        shippingServer = shipping
        server = running
        port = running.port
    }

    /// `count` nodes (ids 1, 2, ...), each serving; stop them with `stopAll`.
    static func started(_ count: Int, registering: Bool = true) async throws -> [TestNode] {
        var nodes: [TestNode] = []
        for number in 1...count {
            let node = try TestNode(node: NodeId(number))
            try await node.start()
            nodes.append(node)
        }
        if registering { try register(nodes) }
        return nodes
    }

    /// Registers every node as a peer of every other (acknowledgements need it).
    static func register(_ nodes: [TestNode]) throws {
        for node in nodes {
            for other in nodes where other !== node {
                try node.ledger.register(other.logbook.nodeId)
            }
        }
    }

    func puller(from other: TestNode) -> PeerPuller {
        PeerPuller(logbook: logbook, peer: other.url, token: other.token, ledger: ledger)
    }

    /// A puller of a stand-in peer listening on `port` (`serve(router)`), token "t".
    func puller(fromPort port: Int) -> PeerPuller {
        PeerPuller(logbook: logbook, peer: "http://127.0.0.1:\(port)", token: "t", ledger: ledger)
    }

    /// Stops the server and waits until its port is free (for a restart on the same port).
    func stopServing() async {
        await server?.stopAndWait()
        server = nil
    }

    /// Stops the server, closes the Logbook and, unless told to keep it, removes the
    /// directory. Safe to call twice.
    func stop(keepingDirectory: Bool = false) {
        server?.stop()
        server = nil
        try? logbook.close()
        if !keepingDirectory { directory.remove() }
    }

    /// Sends a request with this node's token (or `token`) and returns status and body.
    /// `timeout` bounds the whole exchange; the default suits small bodies on a busy machine.
    func send(
        _ path: String, method: HTTPMethod = .GET, body: String? = nil, token: String? = nil,
        headers: [(String, String)] = [], timeout: TimeAmount = .seconds(10)
    ) async throws -> (status: Int, body: String, headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: url + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token ?? self.token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), String(buffer: bytes), response.headers)
    }
}

// Nodes over loopback: they converge by pulling each other's stored batches, remember their
// cursors and acknowledgements, refuse bad tokens and bad bodies without losing anything,
// and a crdt-lite client converges through the JSON endpoints.
@Suite(.serialized) struct ShippingTests {
    /// Conflicting writes on every node: the same records, different values.
    private func writeConflicts(_ nodes: [TestNode], rounds: Int, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        for round in 0..<rounds {
            for (index, node) in nodes.enumerated() {
                let record = "entity/e\(Int.random(in: 0..<15, using: &random))"
                try await node.logbook.insertOrUpdate(
                    record,
                    fields: [
                        ("name", .string("n\(index)-\(round)")), ("content.v", .int(Int64(round))),
                    ])
                if random.chance(0.03) {
                    try await node.logbook.deleteRecord(
                        "entity/e\(Int.random(in: 0..<15, using: &random))")
                }
            }
        }
    }

    @Test func twoNodesConvergeAndRememberCursorsAndAcks() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeConflicts([a, b], rounds: 200, seed: 1)
        var fromA = b.puller(from: a)
        fromA.options.bytesPerFetch = 4096  // several pulls
        fromA.options.bootstrapsFromState = false  // pull A's history, not its state
        let report = try await fromA.catchUp()
        #expect(report.pulls > 1 && report.bootstraps == 0)
        #expect(report.accepted > 0)
        _ = try await a.puller(from: b).catchUp()
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
        #expect(b.ledger.cursor(for: a.url) == report.cursor)
        #expect(a.ledger.all["node-2"]?.acknowledged == report.cursor)
        // A's log now also holds what it accepted from B: B pulls that back and accepts
        // none of it (no ping-pong), and after that there is nothing left to pull.
        let echo = try await fromA.catchUp()
        #expect(echo.received > 0)
        #expect(echo.accepted == 0)
        #expect(try await fromA.catchUp().pulls == 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
        // Without a registry /metrics is off; /status says the digest.
        #expect(try await a.send("/metrics").status == 404)
        let state = try await a.send("/status")
        #expect(state.body.contains(#""digest": "\#(a.logbook.stateDigest())""#))
        let status = try await a.send("/")
        #expect(status.status == 200 && status.body.contains("Logbook node 1"))
    }

    @Test func threeNodesConvergeWhateverTheOrder() async throws {
        let nodes = try await TestNode.started(3)
        defer { for node in nodes { node.stop() } }
        try await writeConflicts(nodes, rounds: 120, seed: 2)
        // A ring (1 ← 2 ← 3 ← 1), twice round: everything reaches everyone.
        for _ in 0..<2 {
            for (index, node) in nodes.enumerated() {
                _ = try await node.puller(from: nodes[(index + 1) % nodes.count]).catchUp()
            }
        }
        let digests = Set(nodes.map { $0.logbook.stateDigest() })
        #expect(digests.count == 1)
    }

    @Test func aResumedPullContinuesFromTheSavedCursor() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeConflicts([a], rounds: 300, seed: 3)
        // A "restart": the ledger is reopened from disk between two pullers.
        var first = b.puller(from: a)
        first.options.bytesPerFetch = 2048
        _ = try await first.catchUp()
        let saved = b.ledger.cursor(for: a.url)
        try await writeConflicts([a], rounds: 50, seed: 4)
        let reopened = try PeerLedger(directory: b.directory.path)
        #expect(reopened.cursor(for: a.url) == saved)
        let resumed = PeerPuller(logbook: b.logbook, peer: a.url, token: a.token, ledger: reopened)
        let report = try await resumed.catchUp()
        #expect(report.pulls > 0)
        #expect(report.cursor > saved)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
    }

    @Test func transfersCutAtRandomPointsAreRetriedFromTheSavedCursor() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeConflicts([a], rounds: 300, seed: 6)
        // A proxy in front of node 1 that cuts every other /log body at a random byte.
        let cutter = BodyCutter(seed: 6)
        let router = Router()
        router.get("log") { request, _ in
            let forwarded = try await forward(request, to: a)
            let bytes = cutter.maybeCut(forwarded.body)
            var headers = forwarded.headers
            headers[.contentLength] = String(bytes.count)
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        var (puller, _, proxy) = await pullThroughProxy(router, from: a, into: b)
        defer { proxy.cancel() }
        puller.options.bytesPerFetch = 2048
        puller.options.bootstrapsFromState = false  // the proxy serves /log only
        var failures = 0
        var caughtUp = false
        for _ in 0..<200 where !caughtUp {
            do {
                let report = try await puller.catchUp()
                caughtUp = report.cursor >= report.peerDurableOffset
            } catch {
                failures += 1  // a cut body: refused whole, cursor unchanged
            }
        }
        #expect(caughtUp)
        #expect(failures > 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
    }

    @Test func aPullFromBelowThePeersLogStartTakesItsSnapshot() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeConflicts([a], rounds: 100, seed: 8)
        // A proxy that answers the first pull (from 0) as a node whose log starts later would.
        let router = Router()
        router.get("log") { request, _ in
            if request.uri.queryParameters.get("from") == "0" {
                throw HTTPError(
                    .gone, message: "snapshot required: offset 0 is below the log start")
            }
            return try await relay(request, to: a)
        }
        router.get("snapshot") { request, _ in try await relay(request, to: a) }
        var (puller, _, proxy) = await pullThroughProxy(router, from: a, into: b)
        defer { proxy.cancel() }
        puller.options.bootstrapsFromState = false  // meet the 410 first
        let report = try await puller.catchUp()
        #expect(report.snapshots == 1)
        #expect(report.accepted > 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
        // Writes after the snapshot arrive as batches from the cursor the snapshot set.
        try await writeConflicts([a], rounds: 20, seed: 9)
        let later = try await puller.catchUp()
        #expect(later.snapshots == 0)
        #expect(later.pulls > 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
    }

    @Test func aNodeWhoseGCMovedItsHistoryStartAnswers410AndItsSnapshotBringsAPeerBack()
        async throws
    {
        let nodes = try await TestNode.started(2, registering: false)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        for index in 0..<40 {
            try await a.logbook.insertOrUpdate(
                "entity/e\(index)", fields: [("name", .string("n\(index)"))])
        }
        for index in stride(from: 0, to: 40, by: 4) {
            try await a.logbook.deleteRecord("entity/e\(index)")
        }
        try a.logbook.sync()
        // A standalone node (no peers registered, none synced yet) may collect at once.
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0
        let collected = try a.logbook.collectTombstones(peers: a.ledger, options)
        #expect(collected.collected == 10)
        #expect(a.logbook.historyStart > 0)
        let (status, body, _) = try await a.send("/log?from=0")
        #expect(status == 410)
        #expect(body.contains("snapshot required"))

        try TestNode.register(nodes)  // b's acknowledgements need it from here on
        var puller = b.puller(from: a)
        puller.options.bootstrapsFromState = false  // meet the 410 first
        let report = try await puller.catchUp()
        #expect(report.snapshots == 1)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
        #expect(b.logbook.getRecord("entity/e0") == nil && b.logbook.getRecord("entity/e1") != nil)
        // Later writes arrive as batches from the offset the snapshot covered.
        try await a.logbook.insertOrUpdate("entity/e1", fields: [("name", "renamed")])
        try a.logbook.sync()
        let later = try await puller.catchUp()
        #expect(later.snapshots == 0 && later.pulls > 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
    }

    @Test func nodesShipOverTLSAndRefuseAnUntrustedCertificate() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        let certificate = fixtures.appendingPathComponent("localhost-cert.pem").path
        let a = try TestNode(node: 1)
        let b = try TestNode(node: 2)
        defer {
            a.stop()
            b.stop()
        }
        try TestNode.register([a, b])
        var configuration = ShippingConfiguration(token: a.token)
        configuration.tls = .init(
            certificateChain: certificate,
            privateKey: fixtures.appendingPathComponent("localhost-key.pem").path)
        let server = try await ShippingServer(
            logbook: a.logbook, configuration: configuration, ledger: a.ledger
        ).start()
        defer { server.stop() }
        #expect(server.url().hasPrefix("https://"))
        try await writeConflicts([a], rounds: 50, seed: 7)
        // Without trusting the self-signed certificate the pull fails and nothing moves.
        let untrusting = try PeerClient.make(trusting: nil, connectTimeout: .seconds(1))
        await #expect(throws: (any Error).self) {
            try await PeerPuller(
                logbook: b.logbook, peer: server.url(), token: a.token, ledger: b.ledger,
                client: untrusting
            ).catchUp()
        }
        try await untrusting.shutdown()
        #expect(b.ledger.cursor(for: server.url()) == 0)
        let trusting = try PeerClient.make(trusting: certificate)
        let report = try await PeerPuller(
            logbook: b.logbook, peer: server.url(), token: a.token, ledger: b.ledger,
            client: trusting
        ).catchUp()
        try await trusting.shutdown()
        #expect(report.accepted > 0)
        #expect(a.logbook.stateDigest() == b.logbook.stateDigest())
    }

    @Test func badTokensAndBadBodiesAreRefusedAndTheNodeKeepsServing() async throws {
        let a = try TestNode(node: 1)
        defer { a.stop() }
        try await a.start()
        try await a.logbook.insertOrUpdate("r", fields: [("a", 1)])
        let before = a.logbook.stateDigest()
        #expect(try await a.send("/log?from=0", token: "wrong").status == 401)
        #expect(try await a.send("/log?from=0", token: "").status == 401)
        #expect(try await a.send("/log?from=zero").status == 400)
        #expect(try await a.send("/log?from=0&wait_ms=soon").status == 400)
        // A bound that is not a positive number is refused, not replaced by the default.
        for query in [
            "/log?from=0&max_bytes=lots", "/log?from=0&max_bytes=-1", "/snapshot?page_changes=ten",
            "/changes?since=0&limit=many",
        ] {
            let reply = try await a.send(query)
            #expect(reply.status == 400, "\(query): \(reply.status) \(reply.body)")
        }
        let garbage = try await a.send("/changes", method: .POST, body: "{not json")
        #expect(garbage.status == 400)
        #expect(garbage.body.contains("not crdt-lite JSON"))
        #expect(try await a.send("/ack", method: .POST, body: #"{"node": "x"}"#).status == 400)
        let huge = String(repeating: "x", count: (16 << 20) + 1)
        #expect(try await a.send("/changes", method: .POST, body: huge).status == 413)
        #expect(a.logbook.stateDigest() == before)
        let pull = try await a.send("/log?from=0")
        #expect(pull.status == 200)
    }

    @Test func aLongPollIsAnsweredWhenARecordBecomesDurable() async throws {
        let a = try TestNode(node: 1)
        defer { a.stop() }
        // Waits of ten minutes, so that an answer within five comes from the write, not from
        // the wait's end, however long the suite on two cores holds this task back.
        try await a.start(logWaitMax: .seconds(600))
        try await a.logbook.insertOrUpdate("r", fields: [("a", 1)])
        try a.logbook.sync()
        let end = a.logbook.durableOffset
        // Nothing past the end: held for the whole wait, then answered empty.
        let started = ContinuousClock.now
        let idle = try await a.send("/log?from=\(end)&wait_ms=300")
        #expect(idle.status == 200 && idle.body.isEmpty)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        // A write during the wait ends it early, with the new record.
        async let held = a.send("/log?from=\(end)&wait_ms=600000", timeout: .seconds(700))
        // The write comes once the poll is seen waiting: a poll arriving after it would be
        // answered at once, and the wake would go untested.
        let waitingDeadline = ContinuousClock.now + .seconds(120)
        while a.shippingServer?.pollsWaiting != 1, ContinuousClock.now < waitingDeadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(a.shippingServer?.pollsWaiting == 1, "the poll never waited")
        let writeStarted = ContinuousClock.now
        try await a.logbook.insertOrUpdate("r", fields: [("a", 2)])
        try a.logbook.sync()
        let answer = try await held
        #expect(answer.status == 200 && !answer.body.isEmpty)
        #expect(a.shippingServer?.pollsWaiting == 0)
        #expect(ContinuousClock.now - writeStarted < .seconds(300), "answered on the write")
        // Data already there: no wait at all.
        let immediate = ContinuousClock.now
        #expect(
            try await a.send("/log?from=0&wait_ms=600000", timeout: .seconds(700)).status == 200)
        #expect(ContinuousClock.now - immediate < .seconds(300))
    }

    @Test func aFollowerKeepsUpUntilCancelledAndResumesFromItsCursor() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        let cursors = CursorLog()
        let following = Task {
            try await b.puller(from: a).follow(wait: .milliseconds(200)) {
                cursors.note($0.cursor)
            }
        }
        for round in 0..<5 {
            try await writeConflicts([a], rounds: 20, seed: UInt64(round))
            try a.logbook.sync()
            let target = a.logbook.durableOffset
            let deadline = ContinuousClock.now + .seconds(20)
            while cursors.last < target && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(cursors.last == target, "round \(round): the follower reached the end")
            #expect(b.logbook.stateDigest() == a.logbook.stateDigest())
        }
        following.cancel()
        _ = await following.result
        #expect(cursors.all == cursors.all.sorted(), "the cursor only moves forward")
        // The cursor was saved durably: a new puller resumes there and finds nothing new.
        let resumed = try await b.puller(from: a).catchUp()
        #expect(resumed.pulls == 0 && resumed.cursor == a.logbook.durableOffset)
    }

    @Test func aCrdtLiteClientConvergesThroughTheJSONEndpoints() async throws {
        let a = try TestNode(node: 1)
        defer { a.stop() }
        try await a.start()
        try await writeConflicts([a], rounds: 40, seed: 5)
        // The client: an in-memory crdt-lite replica speaking only JSON.
        let client = CRDT<String, String, Value>(nodeId: 9)
        let mine =
            client.insertOrUpdate("entity/client", fields: [("name", "from the client")])
            + client.insertOrUpdate("entity/e1", fields: [("name", "client wins?")])
        let body = String(decoding: try JSONEncoder().encode(mine), as: UTF8.self)
        let pushed = try await a.send("/changes", method: .POST, body: body)
        #expect(pushed.status == 200)
        #expect(pushed.body.contains(#""received": \#(mine.count)"#))
        let pulled = try await a.send("/changes?since=0")
        #expect(pulled.status == 200)
        let changes = try JSONDecoder().decode(
            [Change<String, String, Value>].self, from: Data(pulled.body.utf8))
        _ = client.mergeChanges(changes)
        #expect(StateDigest(of: client) == a.logbook.stateDigest())
    }

    @Test func aClientPagesThroughTheChangesWhileTheNodeWrites() async throws {
        let a = try TestNode(node: 1)
        defer { a.stop() }
        try await a.start()
        try await writeConflicts([a], rounds: 60, seed: 6)
        let client = CRDT<String, String, Value>(nodeId: 9)
        var since: UInt64 = 0
        var pages = 0
        while true {
            let page = try await a.send("/changes?since=\(since)&limit=7")
            #expect(page.status == 200)
            let changes = try JSONDecoder().decode(
                [Change<String, String, Value>].self, from: Data(page.body.utf8))
            _ = client.mergeChanges(changes)
            pages += 1
            // Writes between pages get newer versions than every page read so far.
            if pages % 3 == 0 {
                _ = try await a.logbook.insertOrUpdate("entity/e\(pages)", fields: [("p", .int(1))])
            }
            guard let next = page.headers.first(name: ShippingHeaders.nextSince) else { break }
            let nextSince = try #require(UInt64(next))
            #expect(nextSince > since)
            since = nextSince
            try #require(pages < 1000, "paging does not end")
        }
        #expect(pages > 3, "the state took several pages")
        #expect(StateDigest(of: client) == a.logbook.stateDigest())
        #expect(try await a.send("/changes?since=0&limit=0").status == 400)
        #expect(try await a.send("/changes?since=0&limit=x").status == 400)
    }
}

/// Cuts every other body it sees at a random byte (seeded).
final class BodyCutter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var random: SeededGenerator
    private var count = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    func maybeCut(_ bytes: [UInt8]) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        guard count % 2 == 0, bytes.count > 1 else { return bytes }
        return Array(bytes.prefix(Int.random(in: 1..<bytes.count, using: &random)))
    }
}

/// Sends `request`'s path and query (or `pathAndQuery`) to `node` with its token; returns
/// the answer's headers (Logbook ones kept) and body.
func forward(_ request: Request, to node: TestNode, pathAndQuery: String? = nil) async throws
    -> (headers: HTTPFields, body: [UInt8])
{
    var forwarded = HTTPClientRequest(url: node.url + (pathAndQuery ?? request.uri.description))
    forwarded.headers.add(name: "Authorization", value: "Bearer \(node.token)")
    let response = try await HTTPClient.shared.execute(forwarded, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 64 << 20)
    var headers = HTTPFields()
    for (name, value) in response.headers {
        if let field = HTTPField.Name(name) { headers[field] = value }
    }
    return (headers, Array(body.readableBytesView))
}

/// `forward`, answered as is.
func relay(_ request: Request, to node: TestNode) async throws -> Response {
    let forwarded = try await forward(request, to: node)
    return Response(
        status: .ok, headers: forwarded.headers,
        body: .init(byteBuffer: ByteBuffer(bytes: forwarded.body)))
}

/// Runs a test router on a free loopback port.
func serve(_ router: Router<BasicRequestContext>) async -> (port: Int, task: Task<Void, any Error>)
{
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let application = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
    let task = Task { try await application.run() }
    for await port in ports { return (port, task) }
    return (0, task)
}

/// A proxy in front of `peer` serving `router` (acknowledgements answered and dropped), and
/// `follower`'s puller reading through it with the peer's token; cancel `proxy` when done.
func pullThroughProxy(
    _ router: Router<BasicRequestContext>, from peer: TestNode, into follower: TestNode
) async -> (puller: PeerPuller, url: String, proxy: Task<Void, any Error>) {
    router.post("ack") { _, _ in Response(status: .noContent) }
    let (port, proxy) = await serve(router)
    let url = "http://127.0.0.1:\(port)"
    let puller = PeerPuller(
        logbook: follower.logbook, peer: url, token: peer.token, ledger: follower.ledger)
    return (puller, url, proxy)
}

/// The cursors a follower reported, in order.
final class CursorLog: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var cursors: [UInt64] = []

    func note(_ cursor: UInt64) { lock.withLock { cursors.append(cursor) } }
    var last: UInt64 { lock.withLock { cursors.last ?? 0 } }
    var all: [UInt64] { lock.withLock { cursors } }
}
