import Foundation
import LogbookCRDT
import LogbookShipping
import Testing

@testable import LogbookHub

#if canImport(Glibc)
    import Glibc
#endif

// A hub's whole `GET changes` holds every change it answers with until the last byte is
// sent, so it takes one of `largeAnswersMax` slots: a reader that stalls holds it, the next
// whole answer or large state page waits and is answered 503 with Retry-After, a small page
// passes.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubLargeAnswerTests {
    /// A blocking socket that sends `request` and never reads, so the answer's writes stall
    /// once the buffers are full (its receive buffer is made small before it connects).
    final class StalledReader {
        let socket: Int32

        init(port: Int, request: String) throws {
            #if canImport(Glibc)
                socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var small: Int32 = 4096
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let bytes = Array(request.utf8)
            guard connected == 0, send(socket, bytes, bytes.count, 0) == bytes.count else {
                close(socket)
                throw CocoaError(.fileReadUnknown)
            }
        }

        deinit { close(socket) }
    }

    @Test func aStalledWholeAnswerHoldsTheOnlySlot() async throws {
        var configuration = HubServer.Configuration()
        configuration.connections.largeAnswersMax = 1
        configuration.connections.largeAnswerWaitMax = .milliseconds(300)
        let settings = configuration
        try await HubTestDatabase.withStore { store in
            let hub = HubServer(store: store, configuration: settings)
            let server = try await hub.start()
            defer { server.stop() }
            let stream = HubTestDatabase.freshStream()
            let token = try await store.createToken(streams: [stream], readOnly: false)
            // 2,000 values of 10 KB (about 20 MB), pushed 500 at a time.
            let writer = CRDT<String, String, Value>(nodeId: 1)
            let padding = String(repeating: "p", count: 10_000)
            for start in stride(from: 0, to: 2_000, by: 500) {
                let changes = (start..<(start + 500)).flatMap {
                    writer.insertOrUpdate("e/\($0)", fields: [("v", .string(padding))])
                }
                let posted = try await HubServerTests.send(
                    server, "/streams/\(stream)/changes", method: .POST,
                    body: try HubServerTests.json(changes), token: token)
                #expect(posted.status == 200, "\(posted.body)")
            }
            let path = "/streams/\(stream)/changes?since=0"
            var stalled: StalledReader? = try StalledReader(
                port: server.port,
                request: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(token)\r\n\r\n")
            let deadline = ContinuousClock.now + .seconds(60)
            while hub.largeAnswers.inUse == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(hub.largeAnswers.inUse == 1, "the stalled answer took no slot")
            let refused = try await HubServerTests.send(server, path, token: token)
            #expect(refused.status == 503, "\(refused.body)")
            #expect(refused.headers.first(name: "Retry-After") == "1")
            let page = try await HubServerTests.send(server, path + "&limit=10", token: token)
            #expect(page.status == 200, "a small page waited for the slot")
            // The stream's state pages the same way: a large one waits, a small one passes.
            let snapshot = "/streams/\(stream)/snapshot?page_changes="
            let large = try await HubServerTests.send(server, snapshot + "100000", token: token)
            #expect(large.status == 503, "\(large.body)")
            let small = try await HubServerTests.send(server, snapshot + "10", token: token)
            #expect(small.status == 200, "a small state page waited for the slot")

            withExtendedLifetime(stalled) {}
            stalled = nil  // closes the socket
            while hub.largeAnswers.inUse > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(hub.largeAnswers.inUse == 0, "the slot outlived its closed connection")
            let whole = try await HubServerTests.send(server, path, token: token)
            #expect(whole.status == 200 && whole.body.utf8.count > 20_000_000)
        }
    }
}
