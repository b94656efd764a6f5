import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import NIOCore
import Testing

// A node that has never pulled from a peer starts from the peer's state, in binary pages,
// not from its history; then it follows the log from the offset that state covers. A page
// damaged on the way is refused whole and the next try takes it; a peer that answers JSON
// (a hub, or a node from before the binary form) is still taken.
@Suite(.serialized) struct StateBootstrapTests {
    /// Many updates to few records, and some deletions: a history far longer than its state.
    private func writeHistory(_ node: TestNode, records: Int, rounds: Int) async throws {
        for round in 0..<rounds {
            for record in 0..<records {
                try await node.logbook.insertOrUpdate(
                    "entity/e\(record)",
                    fields: [("name", .string("n\(round)")), ("content.round", .int(Int64(round)))])
            }
        }
        for record in stride(from: 0, to: records, by: 5) {
            try await node.logbook.deleteRecord("entity/e\(record)")
        }
        try node.logbook.sync()
    }

    @Test func aNewNodeTakesThePeersStateThenFollowsItsLog() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeHistory(a, records: 30, rounds: 20)
        let state = a.logbook.snapshotChanges()
        var puller = b.puller(from: a)
        puller.options.statePageChanges = 16  // several pages
        let report = try await puller.catchUp()
        #expect(report.bootstraps == 1 && report.snapshots == 0)
        #expect(report.pulls == 0, "everything below the covered offset came with the state")
        #expect(report.received == state.count)
        #expect(report.cursor == a.logbook.durableOffset)
        #expect(b.logbook.stateDigest() == a.logbook.stateDigest())
        // B logged the state, not the 1,206 changes of A's history.
        #expect(state.count == 24 * 2 + 6)
        #expect(b.logbook.nextOffset < a.logbook.nextOffset / 10)
        #expect(a.ledger.all["node-2"]?.acknowledged == report.cursor)

        try await a.logbook.insertOrUpdate("entity/e1", fields: [("name", "later")])
        try a.logbook.sync()
        let later = try await puller.catchUp()
        #expect(later.bootstraps == 0 && later.pulls > 0 && later.accepted == 1)
        #expect(b.logbook.stateDigest() == a.logbook.stateDigest())
    }

    @Test func aStatePageIsServedInBinaryOnlyWhenAskedFor() async throws {
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start()
        try await writeHistory(node, records: 12, rounds: 3)
        func get(_ query: String) async throws -> (type: String?, body: [UInt8], after: String?) {
            var request = HTTPClientRequest(url: node.url + "/snapshot?" + query)
            request.headers.add(name: "Authorization", value: "Bearer \(node.token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            let body = try await response.body.collect(upTo: 1 << 24)
            return (
                response.headers.first(name: "Content-Type"), Array(body.readableBytesView),
                response.headers.first(name: ShippingHeaders.snapshotAfter)
            )
        }
        let binary = try await get("page_changes=5&format=batches")
        let json = try await get("page_changes=5&format=swift")
        #expect(binary.type == StatePageBatches.mediaType)
        #expect(json.type?.hasPrefix("application/json") == true)
        let fromJSON = try JSONDecoder().decode(
            [Change<String, String, Value>].self, from: Data(json.body))
        let fromBinary = try StatePageBatches.decode(binary.body, rawBytesMax: 1 << 24)
        // The same changes; JSON in crdt-lite's order, the binary form in any order.
        let inSyncOrder = ChangedState<String, String, Value>.isInSyncOrder
        #expect(fromJSON == fromJSON.sorted(by: inSyncOrder))
        #expect(fromBinary.sorted(by: inSyncOrder) == fromJSON && fromBinary.count >= 5)
        #expect(binary.after != nil && binary.after == json.after)
        // Unpaged, too.
        let whole = try await get("format=batches")
        #expect(
            try StatePageBatches.decode(whole.body, rawBytesMax: 1 << 24)
                == node.logbook.snapshotChanges())
    }

    @Test func aDamagedStatePageIsRefusedWholeAndTheNextTryTakesIt() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeHistory(a, records: 30, rounds: 4)
        // A proxy in front of A that flips one byte of every other state page.
        let flips = FlipCounter()
        let router = Router()
        router.get("snapshot") { request, _ in
            let forwarded = try await forward(request, to: a)
            var bytes = forwarded.body
            if flips.next(), !bytes.isEmpty { bytes[bytes.count / 2] ^= 0x10 }
            return Response(
                status: .ok, headers: forwarded.headers,
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("log") { request, _ in try await relay(request, to: a) }
        let (puller, peer, proxy) = await pullThroughProxy(router, from: a, into: b)
        defer { proxy.cancel() }
        do {
            _ = try await puller.catchUp()
            Issue.record("a damaged state page was taken")
        } catch {
            #expect("\(error)".contains("state page refused"), "\(error)")
        }
        #expect(b.ledger.cursor(for: peer) == 0)
        #expect(b.logbook.records().isEmpty, "nothing of the damaged page was merged")
        try await b.logbook.insertOrUpdate("entity/b", fields: [("name", "still writable")])
        // Every other page arrives whole: a state of one page is taken on the second try.
        let report = try await puller.catchUp()
        #expect(report.bootstraps == 1)
        #expect(b.logbook.getRecord("entity/e1") == a.logbook.getRecord("entity/e1"))
        #expect(b.logbook.getRecord("entity/e0") == nil)
    }

    @Test func aPeerAnsweringJSONStatePagesIsStillTaken() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        try await writeHistory(a, records: 20, rounds: 5)
        // A peer from before the binary form: it ignores `format=batches` and answers JSON.
        let router = Router()
        router.get("snapshot") { request, _ in
            var query = request.uri.queryParameters.filter { $0.key != "format" }
                .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            query += "&format=swift"
            let old = try await forward(request, to: a, pathAndQuery: "/snapshot?" + query)
            return Response(
                status: .ok, headers: old.headers,
                body: .init(byteBuffer: ByteBuffer(bytes: old.body)))
        }
        router.get("log") { request, _ in try await relay(request, to: a) }
        var (puller, _, proxy) = await pullThroughProxy(router, from: a, into: b)
        defer { proxy.cancel() }
        puller.options.statePageChanges = 7
        let report = try await puller.catchUp()
        #expect(report.bootstraps == 1)
        #expect(b.logbook.stateDigest() == a.logbook.stateDigest())
    }

    @Test func aPeerWithNothingYetIsPulledAsUsualAndTakenOnceItHasSomething() async throws {
        let nodes = try await TestNode.started(2)
        defer { for node in nodes { node.stop() } }
        let (a, b) = (nodes[0], nodes[1])
        let puller = b.puller(from: a)
        let empty = try await puller.catchUp()
        #expect(empty.bootstraps == 0 && empty.cursor == 0 && empty.received == 0)
        try await writeHistory(a, records: 3, rounds: 2)
        let report = try await puller.catchUp()
        #expect(report.bootstraps == 1)
        #expect(b.logbook.stateDigest() == a.logbook.stateDigest())
    }
}

/// True every other time it is asked, starting with the first.
final class FlipCounter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var count = 0

    func next() -> Bool {
        lock.withLock {
            count += 1
            return count % 2 == 1
        }
    }
}
