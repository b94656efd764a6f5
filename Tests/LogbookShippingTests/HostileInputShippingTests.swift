import Foundation
import HTTPTypes
import Hummingbird
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookStorage
import LogbookTesting
import NIOCore
import Testing

// A node fed by hostile clients and peers: changes over the limits are refused with 400 (a
// client) or a pull error (a peer) before anything is merged or logged, never poison the
// node, and every later write and read works. An empty body is a client error too.
@Suite(.serialized) struct HostileInputShippingTests {
    private func json(dbVersion: String = "1", value: String = #""X""#) -> String {
        #"{"recordId":"e/x","colName":"n","value":\#(value),"colVersion":1,"#
            + #""dbVersion":\#(dbVersion),"nodeId":9,"localDbVersion":1,"flags":0}"#
    }

    private func expectWritable(_ node: TestNode) async throws {
        let next = try await node.send("/changes", method: .POST, body: json(value: "2"))
        #expect(next.status == 200, "\(next.body)")
        try await node.logbook.insertOrUpdate("e/local", fields: [("n", 1)])
        #expect(try await node.send("/log?from=0").status == 200)
    }

    @Test func aClientsVersionOverTheLimitIsRefusedWith400() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        let before = node.logbook.stateDigest()
        let refused = try await node.send(
            "/changes", method: .POST, body: json(dbVersion: "18446744073709551615"))
        #expect(refused.status == 400)
        #expect(refused.body.contains("ChangeLimits.versionMax"), "\(refused.body)")
        #expect(node.logbook.stateDigest() == before)
        try await expectWritable(node)
    }

    @Test func aVersionAClientsFollowersCouldNotWritePastIsRefusedWith400() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        // 2^63 − 1 fits the log, but a crdt-lite client that pulled it would make 2^63 next,
        // which no node takes (docs/decisions/0014): the door is 2^62 + 2^32 on a new node.
        for version in ["9223372036854775807", "4611686022722355201"] {
            let refused = try await node.send(
                "/changes", method: .POST, body: json(dbVersion: version))
            #expect(refused.status == 400)
            #expect(refused.body.contains("2^32 past its clock"), "\(refused.body)")
        }
        #expect(node.logbook.records().isEmpty)
        let highest = try await node.send(
            "/changes", method: .POST, body: json(dbVersion: "4611686022722355200"))
        #expect(highest.status == 200, "\(highest.body)")
        try await expectWritable(node)
    }

    @Test func aClientsDecomposedRecordIdIsRefusedWith400() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        // "é" as "e" + U+0301, escaped in the JSON text: not NFC (docs/decisions/0006).
        let body = json().replacingOccurrences(of: #""e/x""#, with: #""e/cafe\u0301""#)
        let refused = try await node.send("/changes", method: .POST, body: body)
        #expect(refused.status == 400)
        #expect(refused.body.contains("not in Unicode NFC"), "\(refused.body)")
        #expect(node.logbook.records().isEmpty)
        let composed = json().replacingOccurrences(of: #""e/x""#, with: #""e/caf\u00e9""#)
        #expect(try await node.send("/changes", method: .POST, body: composed).status == 200)
        try await expectWritable(node)
    }

    @Test func anOversizedValueUnderTheBodyLimitIsRefusedAndDoesNotPoisonTheNode() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        // A body just under the 16 MiB limit whose value is just over the value limit (a
        // body of doubles, `1.5,` each, would encode to twice its size; a string is quicker
        // to parse in a debug build and crosses the same check).
        let text = String(repeating: "a", count: ChangeLimits.valueSizeMax)
        let body = json(value: "\"\(text)\"")
        #expect(body.utf8.count < 16 << 20)
        // Parsing 16 MiB takes about 1.3 s in a debug build alone; the whole suite shares
        // two cores, and one CI run took over 10 s here. The test is about the refusal, not
        // its speed, so the deadline is generous.
        let refused = try await node.send(
            "/changes", method: .POST, body: body, timeout: .seconds(90))
        #expect(refused.status == 400)
        #expect(refused.body.contains("ChangeLimits.valueSizeMax"), "\(refused.body.prefix(300))")
        try await expectWritable(node)
    }

    @Test func aServerOnAPortInUseFailsToStartInsteadOfHanging() async throws {
        let first = try TestNode(node: 1)
        let second = try TestNode(node: 2)
        defer {
            first.stop()
            second.stop()
        }
        try await first.start()
        await #expect(throws: (any Error).self) { try await second.start(port: first.port) }
    }

    @Test func aPeerThatTricklesItsBodyFailsThePullAtTheDeadline() async throws {
        // A peer that answers at once, then sends a byte every 200 ms, for ever.
        let router = Router()
        router.get("log") { _, _ in
            var headers = HTTPFields()
            headers[HTTPField.Name("Logbook-Durable-Offset")!] = "10"
            headers[HTTPField.Name("Logbook-Next-Offset")!] = "10"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    while true {
                        try await writer.write(ByteBuffer(bytes: [0]))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                })
        }
        let (port, task) = await serve(router)
        defer { task.cancel() }
        let follower = try TestNode(node: 2)
        defer { follower.stop() }
        var puller = follower.puller(fromPort: port)
        puller.transport.transferTimeout = .seconds(1)
        puller.options.bootstrapsFromState = false  // the peer serves /log only
        let started = ContinuousClock.now
        do {
            _ = try await puller.catchUp()
            Issue.record("a trickling answer was accepted")
        } catch {
            // The 1 s set here was applied, not the 30 s default.
            #expect("\(error)".contains("no complete answer within 1.0 seconds"), "\(error)")
        }
        // A bound on a hang only: the rest of the suite shares this machine's two cores and
        // has held a waiting task back for 80 s.
        #expect(ContinuousClock.now - started < .seconds(300))
        #expect(follower.ledger.cursor(for: "http://127.0.0.1:\(port)") == 0)
        try await follower.logbook.insertOrUpdate("e/still", fields: [("n", 1)])
    }

    /// Issue 60, class 6: a peer that answers "nothing new" at once, never holding the poll,
    /// is asked a few times a second, not thousands (measured before: about 4,500).
    @Test func aPeerThatNeverHoldsItsPollsIsPaced() async throws {
        let requests = Counter()
        let router = Router()
        router.get("log") { _, _ in
            requests.increment()
            var headers = HTTPFields()
            headers[HTTPField.Name("Logbook-Durable-Offset")!] = "0"
            headers[HTTPField.Name("Logbook-Next-Offset")!] = "0"
            return Response(status: .ok, headers: headers)
        }
        let (port, task) = await serve(router)
        defer { task.cancel() }
        let follower = try TestNode(node: 2)
        defer { follower.stop() }
        var puller = follower.puller(fromPort: port)
        puller.options.bootstrapsFromState = false  // the peer serves /log only
        let following = Task { [puller] in await puller.run(interval: .milliseconds(500)) }
        // Until five polls came (not for a fixed time: the suite on two cores can hold the
        // follower back for seconds). Paced, the waits between them are at least half of
        // 20, 40, 80 and 160 ms (150 ms); unpaced, five came within a millisecond or two.
        let deadline = ContinuousClock.now + .seconds(120)
        while requests.value < 5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        following.cancel()
        await following.value
        let times = requests.times
        try #require(times.count >= 5, "the follower asked \(times.count) times in 120 s")
        #expect(times[4] - times[0] >= .milliseconds(150), "five polls in \(times[4] - times[0])")
    }

    @Test func aSnapshotLargerThanOneChunkStreamsWhole() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        let client = CRDT<String, String, Value>(nodeId: 7)
        var changes: [Change<String, String, Value>] = []
        for number in 0..<12_000 {
            changes += client.insertOrUpdate(
                "entity/\(number)", fields: [("name", .string("a lamp of the long hall \(number)"))]
            )
        }
        try await node.logbook.merge(changes)
        let (status, body, _) = try await node.send("/snapshot")
        #expect(status == 200)
        #expect(body.utf8.count > 1 << 20, "more than one chunk")
        let decoded = try JSONDecoder().decode(
            [Change<String, String, Value>].self, from: Data(body.utf8))
        #expect(decoded.count == 12_000)
        #expect(Set(decoded.map(\.recordId)).count == 12_000)
    }

    @Test func aFollowerTakesASnapshotPageByPage() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (peer, follower) = (nodes[0], nodes[1])
        // Ids that need percent-encoding in a header and a query, and plenty of them.
        let odd = ["r/é", "r/a b", "r/100%", "r/%41", "r/+&=?", "r/\u{1F600}"]
        for id in odd + (0..<40).map({ "r/\($0)" }) {
            try await peer.logbook.insertOrUpdate(id, fields: [("a", 1), ("b", .string(id))])
        }
        try await peer.logbook.deleteRecord("r/7")
        try peer.logbook.sync()
        // A cursor past the peer's end: the peer answers 409 and the follower resyncs.
        try follower.ledger.setCursor(1_000_000, for: peer.url, nodeId: 1)
        var puller = follower.puller(from: peer)
        puller.options.statePageChanges = 5
        let report = try await puller.catchUp()
        #expect(report.divergences == 1)
        #expect(report.snapshots == 1)
        #expect(report.received == 45 * 2 + 1, "every column of 45 records and 1 deletion")
        #expect(follower.logbook.stateDigest() == peer.logbook.stateDigest())
        for id in odd { #expect(follower.logbook.getRecord(id)?.field("b") == .string(id)) }
    }

    @Test func aPeerWhoseSnapshotNeverEndsFailsThePull() async throws {
        // Answers every pull with 409 and every snapshot page with the same page and a
        // "next page" header: a follower must not page for ever.
        let router = Router()
        router.get("log") { _, _ -> Response in Response(status: .conflict) }
        router.get("snapshot") { _, _ -> Response in
            var headers = HTTPFields()
            headers[HTTPField.Name("Logbook-Next-Offset")!] = "5"
            headers[HTTPField.Name("Logbook-Snapshot-After")!] = "r%2F1"
            let page =
                #"[{"recordId":"r/1","colName":"a","value":1,"colVersion":1,"#
                + #""dbVersion":1,"nodeId":3,"localDbVersion":1,"flags":0}]"#
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        let (port, task) = await serve(router)
        defer { task.cancel() }
        let follower = try TestNode(node: 2)
        defer { follower.stop() }
        let puller = follower.puller(fromPort: port)
        do {
            _ = try await puller.catchUp()
            Issue.record("an endless snapshot was accepted")
        } catch {
            #expect("\(error)".contains("went back"), "\(error)")
        }
        #expect(follower.ledger.cursor(for: "http://127.0.0.1:\(port)") == 0)
    }

    @Test func anEmptyBodyIsABadRequest() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        #expect(try await node.send("/changes", method: .POST, body: "").status == 400)
        #expect(try await node.send("/changes", method: .POST, body: " \n").status == 400)
        #expect(try await node.send("/changes", method: .POST, body: "[]").status == 200)
    }

    /// Changes no current writer admits, each with what its refusal names: a version over the
    /// limit, and ids and a column name not in NFC (a log written before decision 0006).
    static let inadmissible: [(change: Change<String, String, Value>, reason: String)] = [
        (
            Change(
                recordId: "e/x", colName: "n", value: "X", colVersion: 1, dbVersion: .max,
                nodeId: 2, localDbVersion: 1), "ChangeLimits.versionMax"
        ),
        (
            Change(
                recordId: "e/cafe\u{0301}", colName: "n", value: "X", colVersion: 1,
                dbVersion: 1, nodeId: 2, localDbVersion: 1), "not in Unicode NFC"
        ),
        (
            Change(
                recordId: "e/x", colName: "nai\u{0308}ve", value: "X", colVersion: 1,
                dbVersion: 1, nodeId: 2, localDbVersion: 1), "not in Unicode NFC"
        ),
    ]

    // Both doors a new follower pulls through: the peer's state pages and its log.
    @Test(arguments: 0..<Self.inadmissible.count, [true, false])
    func aPeersLogWithAnInadmissibleChangeIsRefusedAndTheFollowerStaysWritable(
        case index: Int, fromState: Bool
    ) async throws {
        let (hostile, reason) = Self.inadmissible[index]
        // A peer whose log holds a change no current writer admits (an old or hostile log).
        let peer = try TestNode(node: 2) { directory in
            try Logbook.open(directory: directory, nodeId: 2).close()
            let log = try Log.open(directory: directory)
            var bytes: [UInt8] = []
            ChangeRecordCodec.encode(.change(hostile), into: &bytes)
            try log.append(bytes, version: 1)
            try log.close()
        }
        let follower = try TestNode(node: 1)
        defer {
            peer.stop()
            follower.stop()
        }
        try await peer.start()
        try await follower.start()
        var puller = follower.puller(from: peer)
        puller.options.bootstrapsFromState = fromState
        do {
            _ = try await puller.catchUp()
            Issue.record("the hostile batch was merged")
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
        #expect(follower.ledger.cursor(for: peer.url) == 0, "the cursor did not move past it")
        #expect(follower.logbook.records().isEmpty)
        try await expectWritable(follower)
    }
}

// A peer restored from an older copy of its log: its followers' cursors are past what it
// now holds. The follower states its position, the peer answers 409 "diverged", and the
// follower resyncs from the peer's state: what the peer wrote at the reused offsets
// reaches it, nothing is skipped. Without the position check the peer answered "nothing
// new" and those changes were never pulled.
@Suite(.serialized) struct RestoredPeerShippingTests {
    @Test(arguments: [10, 300])
    func aFollowerOfARestoredPeerResyncsAndMissesNothing(writtenAfterRestore: Int) async throws {
        let backup = TemporaryDirectory("backup")
        var peer = try TestNode(node: 1)
        let follower = try TestNode(node: 2)
        defer {
            peer.stop()
            follower.stop()
            backup.remove()
        }
        try await peer.start()
        try TestNode.register([peer, follower])
        let port = peer.port
        for number in 0..<100 {
            try await peer.logbook.insertOrUpdate("kept/\(number)", fields: [("n", 1)])
        }
        try peer.logbook.sync()
        try FileManager.default.removeItem(atPath: backup.path)
        try FileManager.default.copyItem(atPath: peer.directory.path, toPath: backup.path)
        for number in 0..<100 {
            try await peer.logbook.insertOrUpdate("lost/\(number)", fields: [("n", 1)])
        }
        let first = try await follower.puller(from: peer).catchUp()
        #expect(first.divergences == 0)
        let url = peer.url

        // The peer comes back from the copy, on the same address, and writes anew.
        await peer.stopServing()  // the port must be free for the restart
        peer.stop()  // removes its directory: the copy takes its place
        try FileManager.default.copyItem(atPath: backup.path, toPath: peer.directory.path)
        peer = try TestNode(node: 1, at: peer.directory)
        try await peer.start(port: port)
        try TestNode.register([peer, follower])
        #expect(peer.url == url)
        for number in 0..<writtenAfterRestore {
            try await peer.logbook.insertOrUpdate("after/\(number)", fields: [("n", 2)])
        }
        let second = try await follower.puller(from: peer).catchUp()
        #expect(second.divergences == 1)
        #expect(second.snapshots == 1)
        for number in [0, writtenAfterRestore - 1] {
            #expect(follower.logbook.getRecord("after/\(number)") != nil)
        }
        // The follower keeps what only it still holds; the peer can pull it back.
        #expect(follower.logbook.getRecord("lost/0") != nil)
        let third = try await follower.puller(from: peer).catchUp()
        #expect(third.divergences == 0, "the resync left a position the peer holds")
    }
}

// Acknowledgements gate tombstone GC, so only registered peers may send them, and only of
// positions this log holds: one from node 0, from the node itself or from an unregistered
// node, or one past the durable end or in another epoch, is refused and stored nowhere.
@Suite(.serialized) struct AcknowledgementRefusalTests {
    /// A started node 1 with node 2 registered and one record durable, and its durable end.
    private func nodeWithPeerTwo() async throws -> (TestNode, UInt64) {
        let node = try TestNode(node: 1)
        do {
            try await node.start()
            try node.ledger.register(2)
            try await node.logbook.insertOrUpdate("a", fields: [("n", 1)])
            try node.logbook.sync()
        } catch {
            node.stop()
            throw error
        }
        return (node, node.logbook.durableOffset)
    }

    @Test func acknowledgementsFromUnregisteredIdsAreRefusedAndNotStored() async throws {
        let (node, end) = try await nodeWithPeerTwo()
        defer { node.stop() }
        for (id, status) in [(0, 400), (1, 400), (3, 403), (UInt64.max, 403)] as [(UInt64, Int)] {
            let answer = try await node.send(
                "/ack", method: .POST, body: #"{"node": \#(id), "offset": \#(end)}"#)
            #expect(answer.status == status, "node \(id): \(answer.body)")
            #expect(node.ledger.acknowledgement(of: id) == nil)
        }
        #expect(node.ledger.unknownPeers(excluding: 1).isEmpty, "nothing blocks GC")
        let registered = try await node.send(
            "/ack", method: .POST, body: #"{"node": 2, "offset": \#(end)}"#)
        #expect(registered.status == 204, "\(registered.body)")
        #expect(node.ledger.acknowledgement(of: 2)?.acknowledged == end)
    }

    @Test func acknowledgementsOfAPositionThisLogDoesNotHoldAreRefused409() async throws {
        let (node, end) = try await nodeWithPeerTwo()
        defer { node.stop() }
        let epoch = node.logbook.epochId(holding: end - 1)
        for body in [
            #"{"node": 2, "offset": \#(end + 1)}"#,
            #"{"node": 2, "offset": \#(end), "epoch": \#(epoch &+ 1)}"#,
        ] {
            let answer = try await node.send("/ack", method: .POST, body: body)
            #expect(answer.status == 409, "\(body): \(answer.body)")
            #expect(answer.body.contains("does not hold"), "\(answer.body)")
            #expect(node.ledger.acknowledgement(of: 2)?.acknowledged == nil)
        }
        let held = try await node.send(
            "/ack", method: .POST, body: #"{"node": 2, "offset": \#(end), "epoch": \#(epoch)}"#)
        #expect(held.status == 204, "\(held.body)")
        #expect(node.ledger.acknowledgement(of: 2)?.acknowledged == end)
    }
}

/// A count shared with a request handler.
private final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    private var instants: [ContinuousClock.Instant] = []
    var value: Int { lock.withLock { count } }
    /// When each increment came.
    var times: [ContinuousClock.Instant] { lock.withLock { instants } }
    func increment() {
        lock.withLock {
            count += 1
            instants.append(.now)
        }
    }
}
