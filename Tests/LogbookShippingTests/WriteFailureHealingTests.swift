import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import LogbookNode
import LogbookShipping
import LogbookTesting
import NIOCore
import NIOHTTP1
import Testing

// Issue 60, class 4: a node that cannot write says so — `/readyz` and `/status` 503 with the
// cause, `logbook_writable` 0 — and, given a way to reopen its log, heals on its own once the
// disk allows: it comes back on its port, takes writes again, and every acknowledged write
// is there. The full disk is the simulated file system failing every write.
@Suite(.serialized) struct WriteFailureHealingTests {
    private func send(
        _ port: Int, _ path: String, method: HTTPMethod = .GET, body: String? = nil
    ) async -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer t")
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), String(buffer: bytes))
        } catch {
            return (0, "\(error)")  // not listening: the node is reopening its log
        }
    }

    private func post(_ port: Int, _ changes: [Change<String, String, Value>]) async throws
        -> Int
    {
        let body = String(decoding: try ChangeJSON.encodeArray(changes), as: UTF8.self)
        return await send(port, "/changes", method: .POST, body: body).status
    }

    /// Runs a node over a simulated disk; returns it, its task, its port and the disk.
    private func startNode(
        fileSystem: SimulatedFileSystem, heals: Bool
    ) async throws -> (LogbookNode, Task<Void, any Error>, Int) {
        var options = LogbookOptions()
        options.durability = .groupCommit
        options.fileSystem = fileSystem
        let logbook = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        var shipping = ShippingConfiguration(token: "t")
        shipping.port = 0
        shipping.metricsRegistry = nil
        var configuration = LogbookNode.Configuration(shipping: shipping)
        configuration.healingDelayMin = .milliseconds(50)
        configuration.healingDelayMax = .milliseconds(400)
        if heals {
            let reopened = options
            configuration.reopenAfterWriteFailure = {
                try Logbook.open(directory: "/node", nodeId: 1, options: reopened)
            }
        }
        let ledger = try PeerLedger(for: logbook)
        return try await startedNode { onListening in
            LogbookNode(
                logbook: logbook, ledger: ledger, configuration: configuration,
                onListening: onListening)
        }
    }

    @Test func aNodeThatCannotWriteSaysSoOnEveryProbe() async throws {
        let fileSystem = SimulatedFileSystem()
        let (node, task, port) = try await startNode(fileSystem: fileSystem, heals: false)
        let client = CRDT<String, String, Value>(nodeId: 9)
        #expect(await send(port, "/readyz").status == 200)
        #expect(await send(port, "/status").body.contains(#""writable": true"#))
        fileSystem.failOperations(after: 0)
        let refused = try await post(port, client.insertOrUpdate("e/lost", fields: [("n", 1)]))
        #expect(refused >= 500)
        let ready = await send(port, "/readyz")
        #expect(ready.status == 503 && ready.body.contains("not ready"), "\(ready)")
        let status = await send(port, "/status")
        #expect(status.status == 503, "\(status)")
        #expect(
            status.body.contains(#""writable": false"#) && status.body.contains("write_failure"))
        #expect(await send(port, "/healthz").status == 200, "the process still answers")
        await node.shutdown()
        _ = try? await task.value
    }

    @Test func aNodeWhoseDiskFilledHealsOnceItHasRoomAndLosesNothingAcknowledged() async throws {
        let fileSystem = SimulatedFileSystem()
        let (node, task, port) = try await startNode(fileSystem: fileSystem, heals: true)
        let client = CRDT<String, String, Value>(nodeId: 9)
        var acknowledged: [String] = []
        for number in 0..<5 {
            let id = "e/before-\(number)"
            #expect(try await post(port, client.insertOrUpdate(id, fields: [("n", 1)])) == 200)
            acknowledged.append(id)
        }
        fileSystem.failOperations(after: 0)
        let refused = try await post(port, client.insertOrUpdate("e/full", fields: [("n", 1)]))
        #expect(refused >= 500 || refused == 0)
        // While the disk is full, the node keeps failing and reopening; it never takes the
        // write. Then the disk has room again.
        try await Task.sleep(for: .milliseconds(300))
        fileSystem.stopFailingOperations()
        var ready = 0
        for _ in 0..<200 where ready != 200 {
            ready = await send(port, "/readyz").status
            if ready != 200 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(ready == 200, "the node did not heal within 10 s")
        let after = "e/after"
        let afterBody = String(
            decoding: try ChangeJSON.encodeArray(client.insertOrUpdate(after, fields: [("n", 2)])),
            as: UTF8.self)
        let posted = await send(port, "/changes", method: .POST, body: afterBody)
        #expect(posted.status == 200, "\(posted.body)")
        acknowledged.append(after)
        let answer = await send(port, "/changes?since=0")
        #expect(answer.status == 200)
        let held = Set(
            try ChangeJSON.decodeArray(
                Data(answer.body.utf8), as: Change<String, String, Value>.self
            )
            .map(\.recordId))
        for id in acknowledged { #expect(held.contains(id), "\(id) was acknowledged, then lost") }
        await node.shutdown()
        try await task.value
    }
}
