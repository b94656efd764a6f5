import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import NIOCore
import Testing

@testable import LogbookHub

// Nodes sync through a hub with the replication core: they push binary batches, pull the
// stream at offsets, never push back what they pulled, resume from durable cursors, resync
// from the state when the hub does not hold their position, and converge with crdt-lite
// clients on the same stream.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubReplicationTests {
    /// A node: a Logbook in its own directory and its link to the stream.
    struct Node {
        let directory: TemporaryDirectory
        let logbook: Logbook
        var link: HubLink

        init(
            id: UInt64, server: RunningServer, stream: String, token: String,
            directory: TemporaryDirectory = TemporaryDirectory()
        ) throws {
            self.directory = directory
            logbook = try Logbook.open(directory: directory.path, nodeId: id)
            link = try HubLink(
                logbook: logbook, hub: server.url(), stream: stream, token: token,
                ledger: PeerLedger(for: logbook))
        }

        /// Closes the Logbook and removes its directory.
        func close() {
            try? logbook.close()
            directory.remove()
        }
    }

    static func withStream(
        _ configure: (inout HubServer.Configuration) -> Void = { _ in },
        _ body: @Sendable (HubStore, RunningServer, String, String) async throws -> Void
    ) async throws {
        try await HubServerTests.withServer(configure) { store, server in
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            try await body(store, server, stream, token)
        }
    }

    /// What every node must end with: every node's changes merged into one CRDT.
    static func expectConverged(_ nodes: [Node], store: HubStore, stream: String) async throws {
        let reference = CRDT<String, String, Value>(nodeId: 999)
        for node in nodes { reference.mergeChanges(node.logbook.getChangesSince(0)) }
        let expected = StateDigest(of: reference)
        for node in nodes {
            #expect(node.logbook.stateDigest() == expected, "node \(node.logbook.nodeId)")
        }
        let hub = CRDT<String, String, Value>(nodeId: 998)
        let page = try await store.changes(
            in: try await store.stream(named: stream, create: false), since: 0, limit: 1_000_000)
        hub.mergeChanges(page.changes)
        #expect(StateDigest(of: hub) == expected, "the hub's rows")
    }

    @Test func nodesConvergeThroughAHubAndNeverPushBackWhatTheyPulled() async throws {
        try await Self.withStream { store, server, stream, token in
            let nodes = try (1...3).map {
                try Node(id: UInt64($0), server: server, stream: stream, token: token)
            }
            defer { for node in nodes { node.close() } }
            var random = SeededGenerator(seed: 15)
            var written = [0, 0, 0]
            for round in 0..<3 {
                for (index, node) in nodes.enumerated() {
                    for _ in 0..<40 {
                        let id = "r\(Int.random(in: 0..<30, using: &random))"
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0 where node.logbook.getRecord(id) != nil:
                            _ = try await node.logbook.deleteRecord(id)
                        case 1 where node.logbook.getRecord(id)?.field("b") != nil:
                            _ = try await node.logbook.deleteField(id, fieldName: "b")
                        default:
                            if node.logbook.isTombstoned(id) { continue }
                            _ = try await node.logbook.insertOrUpdate(
                                id,
                                fields: [("a", .int(Int64(round))), ("b", .string("n\(index)"))])
                        }
                        written[index] += 1
                    }
                    let report = try await node.link.sync()
                    #expect(report.pushed.pushes >= 1)
                }
            }
            // A last round: every node pulls what the others pushed after it synced; what it
            // pulls is an echo and must not go back.
            for node in nodes {
                let report = try await node.link.sync()
                #expect(report.pushed.sent == 0, "node \(node.logbook.nodeId) pushed an echo")
            }
            for node in nodes {
                let report = try await node.link.sync()
                #expect(report.pushed.sent == 0)
                #expect(report.pulled.accepted == 0)
            }
            let skipped = try await nodes[0].link.sync().pushed
            #expect(skipped.sent == 0)
            try await Self.expectConverged(nodes, store: store, stream: stream)
            #expect(written.allSatisfy { $0 > 0 })
        }
    }

    @Test func echoesPulledFromTheHubAreLeftOutOfPushes() async throws {
        try await Self.withStream { _, server, stream, token in
            let writer = try Node(id: 1, server: server, stream: stream, token: token)
            let reader = try Node(id: 2, server: server, stream: stream, token: token)
            defer {
                writer.close()
                reader.close()
            }
            /// The writer writes `count` records named `prefix`N and syncs them to the hub.
            func writeAndSync(_ prefix: String, _ count: Int) async throws {
                for index in 0..<count {
                    _ = try await writer.logbook.insertOrUpdate(
                        "\(prefix)\(index)", fields: [("v", .int(1))])
                }
                _ = try await writer.link.sync()
            }
            try await writeAndSync("w", 50)
            let pulled = try await reader.link.sync()
            #expect(pulled.pulled.accepted == 50)
            // The round's push after its pull moves the cursor past the 50 pulled changes,
            // sending none of them (that settles the pull).
            #expect(pulled.pushed.sent == 0 && pulled.pushed.echoesSkipped == 50)
            // The reader writes one change of its own; its next push carries that one only.
            _ = try await reader.logbook.insertOrUpdate("mine", fields: [("v", .int(2))])
            let pushed = try await reader.link.pushSession.pushAll()
            #expect(pushed.sent == 1)
            #expect(pushed.echoesSkipped == 0)
            #expect(pushed.accepted == 1)
            // Once the reader has pushed all it wrote, what it pulls next follows its push
            // cursor: the pull's own ledger write moves the cursor past it, and no push has
            // anything left to skip.
            try await writeAndSync("x", 10)
            let again = try await reader.link.sync()
            #expect(again.pulled.accepted == 10)
            #expect(again.pushed.sent == 0 && again.pushed.echoesSkipped == 0)
            let ledger = try PeerLedger(for: reader.logbook)
            #expect(ledger.pushCursor(for: reader.link.peerName) == reader.logbook.durableOffset)
            #expect(ledger.echoes(for: reader.link.peerName).isEmpty)
        }
    }

    @Test func cursorsAreDurableAndARestartResumes() async throws {
        try await Self.withStream { store, server, stream, token in
            let directory = TemporaryDirectory()
            do {
                let node = try Node(
                    id: 7, server: server, stream: stream, token: token, directory: directory)
                for index in 0..<20 {
                    _ = try await node.logbook.insertOrUpdate("k\(index)", fields: [("v", .int(1))])
                }
                _ = try await node.link.sync()
                try node.logbook.close()
            }
            let other = try Node(id: 8, server: server, stream: stream, token: token)
            _ = try await other.logbook.insertOrUpdate("from-8", fields: [("v", .int(8))])
            _ = try await other.link.sync()
            let node = try Node(
                id: 7, server: server, stream: stream, token: token, directory: directory)
            defer {
                node.close()
                other.close()
            }
            let report = try await node.link.sync()
            #expect(report.pushed.sent == 0, "the restart pushed again what the hub holds")
            #expect(report.pulled.received == 1, "the restart pulled again what it had")
            #expect(node.logbook.getRecord("from-8") != nil)
            _ = try await other.link.sync()
            try await Self.expectConverged([node, other], store: store, stream: stream)
        }
    }

    @Test func aNodeAheadOfTheHubResyncsFromTheStateInPages() async throws {
        try await Self.withStream { store, server, stream, token in
            let source = try Node(id: 1, server: server, stream: stream, token: token)
            for index in 0..<25 {
                _ = try await source.logbook.insertOrUpdate("s\(index)", fields: [("v", .int(1))])
            }
            _ = try await source.logbook.deleteRecord("s3")
            _ = try await source.link.sync()
            // As after the hub's database was restored from an older backup: the node holds a
            // position the stream has not reached.
            let directory = TemporaryDirectory()
            do {
                let logbook = try Logbook.open(directory: directory.path, nodeId: 2)
                try PeerLedger(for: logbook).setCursor(
                    1 << 40, for: HubLink.streamURL(hub: server.url(), stream: stream),
                    nodeId: nil)
                try logbook.close()
            }
            var node = try Node(
                id: 2, server: server, stream: stream, token: token, directory: directory)
            node.link.pullOptions.statePageChanges = 4
            defer {
                source.close()
                node.close()
            }
            let report = try await node.link.sync()
            #expect(report.pulled.divergences == 1)
            #expect(report.pulled.snapshots == 1)
            #expect(report.pulled.accepted == 25)  // 24 records and one deletion
            #expect(node.logbook.isTombstoned("s3"))
            try await Self.expectConverged([source, node], store: store, stream: stream)
        }
    }

    @Test func nodesAndACrdtLiteClientConvergeOnOneStream() async throws {
        try await Self.withStream { store, server, stream, token in
            let node = try Node(id: 1, server: server, stream: stream, token: token)
            defer { node.close() }
            _ = try await node.logbook.insertOrUpdate("lamp", fields: [("on", true)])
            _ = try await node.link.sync()
            let client = CRDT<String, String, Value>(nodeId: 2)
            let pulled = try await HubServerTests.send(
                server, "/streams/\(stream)/changes?since=0", token: token)
            client.mergeChanges(
                try JSONDecoder().decode(
                    [Change<String, String, Value>].self, from: Data(pulled.body.utf8)))
            let mine = client.insertOrUpdate("lamp", fields: [("on", false), ("level", 3)])
            let posted = try await HubServerTests.send(
                server, "/streams/\(stream)/changes", method: .POST,
                body: try HubServerTests.json(mine), token: token)
            #expect(posted.status == 200, "\(posted.body)")
            let report = try await node.link.sync()
            #expect(report.pulled.accepted == 2)
            #expect(node.logbook.getRecord("lamp")?.field("on") == .bool(false))
            #expect(node.logbook.stateDigest() == StateDigest(of: client))
            _ = store
        }
    }

    @Test func aHostilePushIsRefusedWholeAndTheStreamKeepsWorking() async throws {
        try await Self.withStream { store, server, stream, token in
            var writer = ShippedBatchWriter()
            for index in 0..<10 {
                writer.add(
                    Change(
                        recordId: "x\(index)", colName: "v", value: .int(1), colVersion: 1,
                        dbVersion: UInt64(index + 1), nodeId: 5, localDbVersion: 0),
                    at: UInt64(index))
            }
            let valid = writer.finish()
            var flipped = valid
            flipped[valid.count - 10] ^= 0x20
            let bodies: [(String, [UInt8])] = [
                ("a flipped byte", flipped), ("a cut body", Array(valid.dropLast(7))),
                ("no batch at all", Array("not batches".utf8)),
            ]
            for (what, body) in bodies {
                let reply = try await Self.post(body, to: server, stream: stream, token: token)
                #expect(reply.status == 400, "\(what): \(reply.status) \(reply.body)")
                #expect(reply.body.contains("byte"), "\(what): \(reply.body)")
            }
            let unauthorized = try await Self.post(valid, to: server, stream: stream, token: "x")
            #expect(unauthorized.status == 401)
            let handle = try await store.stream(named: stream, create: false)
            #expect(try await store.changes(in: handle, since: 0, limit: 100).hubVersion == 0)
            let accepted = try await Self.post(valid, to: server, stream: stream, token: token)
            #expect(accepted.status == 200, "\(accepted.body)")
            #expect(accepted.body.contains(#""accepted": 10"#))
        }
    }

    @Test func aLongPollAnswersWhenAPushArrives() async throws {
        // Polls of ten minutes (the hub's bound raised to match), so that a record arriving
        // within five came with the push, not at a poll's end, however long the suite on
        // two cores holds these tasks back (a waiting task was resumed 80 s late in CI).
        try await HubTestDatabase.withStore { store in
            var configuration = HubServer.Configuration()
            configuration.logWaitMax = .seconds(600)
            let hub = HubServer(store: store, configuration: configuration)
            let server = try await hub.start()
            defer { server.stop() }
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            let writer = try Node(id: 1, server: server, stream: stream, token: token)
            let follower = try Node(id: 2, server: server, stream: stream, token: token)
            defer {
                writer.close()
                follower.close()
            }
            let following = Task { [link = follower.link] in
                await link.run(wait: .seconds(600))
            }
            // The push comes once the follower's poll is seen waiting at the hub.
            let waitingDeadline = ContinuousClock.now + .seconds(120)
            while hub.notifier.waitingCount == 0, ContinuousClock.now < waitingDeadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try #require(hub.notifier.waitingCount == 1, "the follower's poll never waited")
            _ = try await writer.logbook.insertOrUpdate("news", fields: [("v", .int(1))])
            _ = try await writer.link.sync()
            let deadline = ContinuousClock.now + .seconds(300)
            while follower.logbook.getRecord("news") == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Well inside the poll's ten minutes: the answer came with the push.
            #expect(follower.logbook.getRecord("news") != nil)
            // Stopped before the server is: a connection arriving while Hummingbird shuts
            // down traps in NIO (NIOAsyncWriter deinit without finish).
            following.cancel()
            await following.value
        }
    }

    static func post(_ body: [UInt8], to server: RunningServer, stream: String, token: String)
        async throws -> HubServerTests.Reply
    {
        var request = HTTPClientRequest(url: server.url() + "/streams/\(stream)/log")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return HubServerTests.Reply(
            status: Int(response.status.code), body: String(buffer: bytes),
            headers: response.headers)
    }
}

extension HubReplicationTests {
    /// Two hub processes on one database: a long poll waiting at one answers when a push
    /// commits through the other, woken by PostgreSQL's notification — the poll's own
    /// re-reads are set ten minutes apart, so nothing else can answer it within 200 s.
    @Test func aLongPollWakesWhenAnotherHubProcessMerges() async throws {
        try await HubTestDatabase.withStore { store in
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            var configuration = HubServer.Configuration()
            configuration.unheardMergeInterval = .seconds(600)
            configuration.logWaitMax = .seconds(600)
            let waitingHub = HubServer(store: store, configuration: configuration)
            let writing = try await HubServer(store: store).start()
            let waiting = try await waitingHub.start()
            defer {
                writing.stop()
                waiting.stop()
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while !waitingHub.notifier.isListening, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(waitingHub.notifier.isListening)
            let poll = Task {
                let started = ContinuousClock.now
                var request = HTTPClientRequest(
                    url: waiting.url() + "/streams/\(stream)/log?from=0&wait_ms=300000")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(400))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (
                    response.headers.first(name: "Logbook-Batch-Count"), body.readableBytes,
                    ContinuousClock.now - started
                )
            }
            // The push comes once the poll is seen waiting (not after a sleep): a poll that
            // arrived after the push would find the change at once, and the wake by
            // PostgreSQL's notification would go untested.
            let waitingDeadline = ContinuousClock.now + .seconds(60)
            while waitingHub.notifier.waitingCount == 0, ContinuousClock.now < waitingDeadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try #require(waitingHub.notifier.waitingCount == 1, "the poll never waited")
            let posted = try await HubServerTests.send(
                writing, "/streams/\(stream)/changes", method: .POST,
                body:
                    #"[{"record_id":"a","col_name":"v","value":1,"col_version":1,"db_version":1,"node_id":3,"local_db_version":1}]"#,
                token: token)
            #expect(posted.status == 200, "\(posted.body)")
            let (batchCount, bytes, waited) = try await poll.value
            #expect(batchCount == "1" && bytes > 0, "the poll waited \(waited) in vain")
            // Re-reads are ten minutes apart and the wait five: only the notification answers
            // within 200 s, however long the suite on two cores holds the poll back.
            #expect(waited < .seconds(200), "answered at the wait's end, not by the notification")
        }
    }
}
