import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookTesting
import NIOCore
import NIOHTTP1
import Testing

// Issue 60, class 5: an answer never holds a change a crash would take back. A node with
// buffered writes makes what `GET /changes` and `GET /snapshot` gathered durable before it
// answers; a node whose writes failed (its memory may hold changes its log lost) answers
// 503 there and serves none of them, while `/log` keeps serving its durable batches.
@Suite(.serialized) struct DurableAnswerTests {
    private func serve(_ logbook: Logbook) async throws -> RunningServer {
        var configuration = ShippingConfiguration(token: "t")
        configuration.port = 0
        return try await ShippingServer(
            logbook: logbook, configuration: configuration, ledger: PeerLedger(for: logbook)
        ).start()
    }

    private func get(
        _ server: RunningServer, _ path: String, method: HTTPMethod = .GET,
        body: String? = nil
    ) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer t")
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: bytes))
    }

    private func changes(_ client: CRDT<String, String, Value>, _ prefix: String) -> [Change<
        String, String, Value
    >] {
        (0..<5).flatMap { client.insertOrUpdate("\(prefix)/\($0)", fields: [("n", 1)]) }
    }

    @Test func whatAnAnswerHoldsIsDurableBeforeItIsSent() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = LogbookOptions()
        options.durability = .buffered
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        defer { try? logbook.close() }
        let server = try await serve(logbook)
        defer { server.stop() }
        let client = CRDT<String, String, Value>(nodeId: 9)
        for (path, prefix) in [
            ("/changes?since=0", "a"), ("/changes?since=0&limit=2", "b"),
            ("/snapshot", "c"), ("/snapshot?page_changes=3", "d"),
        ] {
            _ = try await logbook.merge(changes(client, prefix))
            #expect(logbook.durableOffset < logbook.nextOffset, "buffered: not yet synced")
            let appended = logbook.nextOffset
            let answer = try await get(server, path)
            #expect(answer.status == 200, "\(path): \(answer.body)")
            #expect(logbook.durableOffset >= appended, "\(path) answered before its sync")
        }
    }

    @Test func aNodeWhoseWritesFailedServesNoneOfItsState() async throws {
        let fileSystem = SimulatedFileSystem()
        var options = LogbookOptions()
        options.durability = .fsyncEachAppend
        options.fileSystem = fileSystem
        let logbook = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        let server = try await serve(logbook)
        defer { server.stop() }
        let client = CRDT<String, String, Value>(nodeId: 9)
        _ = try await logbook.merge(changes(client, "kept"))
        fileSystem.failOperations(after: 0)
        let lost = try ChangeJSON.encodeArray(changes(client, "lost"))
        let posted = try await get(
            server, "/changes", method: .POST, body: String(decoding: lost, as: UTF8.self))
        #expect(posted.status >= 500, "\(posted.body)")
        for path in [
            "/changes?since=0", "/changes?since=0&limit=2", "/snapshot",
            "/snapshot?page_changes=3",
        ] {
            let answer = try await get(server, path)
            #expect(answer.status == 503, "\(path): \(answer.status) \(answer.body)")
            #expect(!answer.body.contains("lost/"), "\(path) served a change its log lost")
        }
        #expect(try await get(server, "/log?from=0").status == 200, "durable batches still go")
    }
}
