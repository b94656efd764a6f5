import AsyncHTTPClient
import Foundation
import Logbook
import LogbookNode
import LogbookShipping
import LogbookTesting
import NIOCore
import Testing

// The node service in-process: a graceful shutdown answers a long poll at once, stops the
// follower and closes the log cleanly; a port in use fails the start with the port named
// and leaves nothing open.
@Suite(.serialized) struct NodeServiceTests {
    private func start(_ makeNode: (@escaping @Sendable (Int) -> Void) -> LogbookNode)
        async throws -> (LogbookNode, Task<Void, any Error>, Int)
    {
        try await startedNode(makeNode)
    }

    @Test func aGracefulShutdownAnswersLongPollsAndClosesTheLogCleanly() async throws {
        let leader = try TestNode(node: 1)
        defer { leader.stop() }
        try await leader.start()
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 2)
        let ledger = try PeerLedger(directory: directory.path)
        try ledger.register(1)
        try leader.ledger.register(2)
        _ = try await leader.logbook.insertOrUpdate("entity/a", fields: [("name", "lamp")])
        // The poll may wait 10 minutes, so a shutdown that waited for it stands out from one
        // slowed by the rest of the suite (a CI run saw 10.8 s; the bound was 5 s then).
        var shipping = ShippingConfiguration(token: leader.token)
        shipping.logWaitMax = .seconds(600)
        var configuration = LogbookNode.Configuration(shipping: shipping)
        configuration.peers = [leader.url]
        configuration.followWait = .seconds(20)
        let (node, task, port) = try await start { onListening in
            LogbookNode(
                logbook: logbook, ledger: ledger, configuration: configuration,
                onListening: onListening)
        }
        // The follower pulls the leader's record.
        for _ in 0..<12_000 where logbook.getRecord("entity/a") == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(logbook.getRecord("entity/a") != nil, "the follower never pulled")
        // A long poll on the node, waiting for records that will not come.
        var poll = HTTPClientRequest(
            url: "http://127.0.0.1:\(port)/log?from=\(logbook.durableOffset)&wait_ms=600000")
        poll.headers.add(name: "Authorization", value: "Bearer \(leader.token)")
        let polling = Task { try await HTTPClient.shared.execute(poll, timeout: .seconds(700)) }
        try await Task.sleep(for: .milliseconds(200))
        let stopping = ContinuousClock.now
        await node.shutdown()
        try await task.value
        let answer = try await polling.value
        #expect(answer.status == .ok, "the long poll was answered")
        #expect(ContinuousClock.now - stopping < .seconds(300), "shutdown waited for the poll")
        // Closed: no more writes, and the directory reopens with nothing to recover.
        await #expect(throws: LogbookError.self) {
            try await logbook.insertOrUpdate("entity/b", fields: [("name", "late")])
        }
        let reopened = try Logbook.open(directory: directory.path)
        #expect(reopened.recovery.isClean)
        #expect(reopened.recovery.truncatedSegment == nil)
        #expect(reopened.getRecord("entity/a") != nil)
        try reopened.close()
    }

    /// A node following a peer for the first time takes its state (one change here), or,
    /// with `bootstrapsFromState` off, its whole log (three).
    @Test(arguments: [true, false])
    func aNewFollowerTakesThePeersStateOrItsHistory(bootstrapsFromState: Bool) async throws {
        let leader = try TestNode(node: 1)
        defer { leader.stop() }
        try await leader.start()
        for name in ["lamp", "lamp 2", "lamp 3"] {
            _ = try await leader.logbook.insertOrUpdate(
                "entity/a", fields: [("name", .string(name))])
        }
        try leader.logbook.sync()
        try leader.ledger.register(2)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 2)
        let ledger = try PeerLedger(directory: directory.path)
        var configuration = LogbookNode.Configuration(
            shipping: ShippingConfiguration(token: leader.token))
        configuration.peers = [leader.url]
        configuration.bootstrapsFromState = bootstrapsFromState
        let (node, task, _) = try await start { onListening in
            LogbookNode(
                logbook: logbook, ledger: ledger, configuration: configuration,
                onListening: onListening)
        }
        for _ in 0..<12_000 where ledger.cursor(for: leader.url) < leader.logbook.durableOffset {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(logbook.getRecord("entity/a")?.field("name") == "lamp 3")
        // The follower's epoch mark, then one state record or the three changes.
        #expect(logbook.durableOffset == (bootstrapsFromState ? 2 : 4))
        await node.shutdown()
        try await task.value
    }

    /// The admin listener serves the status page and the status without a token while the
    /// data port keeps asking for one, and the page draws the lag of a peer that pulled and
    /// acknowledged.
    @Test func theAdminListenerServesThePageWithEachPeersLagWithoutAToken() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path + "/leader", nodeId: 1)
        let ledger = try PeerLedger(directory: directory.path + "/leader")
        try ledger.register(2)
        _ = try await logbook.insertOrUpdate("entity/a", fields: [("name", "lamp")])
        var shipping = ShippingConfiguration(token: "node-token")
        shipping.adminPort = 0
        var configuration = LogbookNode.Configuration(shipping: shipping)
        configuration.lagSampleInterval = .milliseconds(20)
        let (adminPorts, adminContinuation) = AsyncStream.makeStream(of: Int.self)
        let (node, task, port) = try await start { onListening in
            LogbookNode(
                logbook: logbook, ledger: ledger, configuration: configuration,
                onAdminListening: { adminContinuation.yield($0) }, onListening: onListening)
        }
        var adminPort: Int?
        for await listening in adminPorts {
            adminPort = listening
            break
        }
        let admin = "http://127.0.0.1:\(try #require(adminPort))"
        // A follower pulls everything and acknowledges it.
        let follower = try Logbook.open(directory: directory.path + "/follower", nodeId: 2)
        let followerLedger = try PeerLedger(directory: directory.path + "/follower")
        try followerLedger.register(1)
        _ = try await PeerPuller(
            logbook: follower, peer: "http://127.0.0.1:\(port)", token: "node-token",
            ledger: followerLedger
        ).catchUp()
        try follower.close()
        for _ in 0..<2_000 where !lagDrawn(try await get(admin + "/").body) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let page = try await get(admin + "/")
        #expect(page.status == 200 && lagDrawn(page.body), "\(page.body)")
        #expect(page.body.contains(#"<meta http-equiv="refresh""#))
        let status = try await get(admin + "/status")
        #expect(status.status == 200 && status.body.contains(#""node": 1"#), "\(status.body)")
        #expect(try await get("http://127.0.0.1:\(port)/").status == 401)
        await node.shutdown()
        try await task.value
    }

    private func lagDrawn(_ page: String) -> Bool {
        page.contains(#"<polyline class="lag" data-peer="node-2""#)
    }

    private func get(_ url: String) async throws -> (status: UInt, body: String) {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, String(buffer: body))
    }

    @Test func aPortInUseFailsTheStartWithThePortNamedAndClosesEverything() async throws {
        let occupant = try TestNode(node: 1)
        defer { occupant.stop() }
        try await occupant.start()
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 2)
        var shipping = ShippingConfiguration(token: "t")
        shipping.port = occupant.port
        let node = LogbookNode(
            logbook: logbook, ledger: try PeerLedger(directory: directory.path),
            configuration: LogbookNode.Configuration(shipping: shipping))
        let failure = await #expect(throws: NodeStartError.self) { try await node.run() }
        #expect(failure?.port == occupant.port)
        #expect(failure?.description.contains("\(occupant.port)") == true)
        // The log is closed and its directory lock released: it opens again here.
        try Logbook.open(directory: directory.path).close()
    }
}

/// Starts the node `makeNode` builds (handing it the listening callback) in a task; returns
/// it, the task and its port once it listens, or the start's own error.
func startedNode(_ makeNode: (@escaping @Sendable (Int) -> Void) -> LogbookNode)
    async throws -> (LogbookNode, Task<Void, any Error>, Int)
{
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let node = makeNode { continuation.yield($0) }
    let task = Task {
        defer { continuation.finish() }
        try await node.run()
    }
    var listening: Int?
    for await port in ports {
        listening = port
        break
    }
    guard let listening else {
        _ = try await task.value  // the start's own error
        throw CancellationError()
    }
    return (node, task, listening)
}
