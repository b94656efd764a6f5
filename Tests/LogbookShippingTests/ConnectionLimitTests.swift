import Foundation
import Logbook
import LogbookShipping
import NIOCore
import NIOPosix
import Testing

// Connections opened before any token is checked cannot take the node's file descriptors:
// one past the limit is closed at once, one that sends nothing after the first-request
// timeout, an idle one after the idle timeout, a request being answered never; the node
// serves again as soon as the flood lets go.
@Suite struct ConnectionLimitTests {
    /// A TCP connection that sends nothing; `closedByServer` tells whether the server hung
    /// up within `seconds`.
    struct SilentConnection {
        let channel: any Channel

        /// Connects; with `request`, writes it from the event loop as soon as the connection
        /// is up, so a starved test task cannot delay it past a short first-request timeout.
        static func open(port: Int, request: String? = nil) async throws -> SilentConnection {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    guard let request else { return channel.eventLoop.makeSucceededVoidFuture() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(SendOnConnect(request))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            return SilentConnection(channel: channel)
        }

        func closedByServer(within seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while channel.isActive && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return !channel.isActive
        }

        func close() async { try? await channel.close() }
    }

    /// Writes its text when the connection comes up.
    final class SendOnConnect: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let text: String
        init(_ text: String) { self.text = text }
        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: text)), promise: nil)
            context.fireChannelActive()
        }
    }

    @Test func onePastTheLimitIsClosedAndTheNodeServesOnceTheFloodEnds() async throws {
        var limits = ConnectionLimits()
        limits.connectionsMax = 3
        // Held silent for as long as a starved test takes: only the limit may close them.
        (limits.firstRequestTimeout, limits.idleTimeout) = (.seconds(3600), .seconds(3600))
        #expect(limits.connectionsAllowed == 3)
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        var held: [SilentConnection] = []
        for _ in 0..<3 { held.append(try await SilentConnection.open(port: node.port)) }
        for connection in held { #expect(!(await connection.closedByServer(within: 0.3))) }
        let extra = try await SilentConnection.open(port: node.port)
        #expect(await extra.closedByServer(within: 10), "the fourth connection stays open")
        for connection in held { await connection.close() }
        var status = 0
        for _ in 0..<50 where status != 200 {  // the server counts the closes out as it sees them
            status = (try? await node.send("/status", timeout: .seconds(2)).status) ?? 0
            if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == 200)
    }

    @Test func anIdleConnectionIsClosedButALongPollIsNot() async throws {
        var limits = ConnectionLimits()
        limits.idleTimeout = .milliseconds(300)
        limits.firstRequestTimeout = .seconds(3600)  // only the idle timeout may close it
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        let idle = try await SilentConnection.open(port: node.port)
        #expect(await idle.closedByServer(within: 10), "an idle connection outlived its timeout")
        // Held four times the idle timeout waiting for a write, then answered.
        try await node.logbook.insertOrUpdate("e/a", fields: [("n", 1)])
        try node.logbook.sync()
        let end = node.logbook.durableOffset
        async let poll = node.send("/log?from=\(end)&wait_ms=5000")
        try await Task.sleep(for: .milliseconds(1200))
        try await node.logbook.insertOrUpdate("e/b", fields: [("n", 2)])
        try node.logbook.sync()
        let answer = try await poll
        #expect(answer.status == 200)
        // Nothing was durable past `end` until e/b, written 1,200 ms in: an answer holding a
        // batch was held open across four idle timeouts (an early answer would hold none).
        #expect(answer.headers.first(name: ShippingHeaders.batchCount) == "1", "\(answer.headers)")
        let next = answer.headers.first(name: ShippingHeaders.nextOffset).flatMap(UInt64.init)
        #expect((next ?? 0) > end, "\(answer.headers)")
    }

    @Test func aConnectionThatSendsNothingIsClosedOneThatAskedIsNot() async throws {
        var limits = ConnectionLimits()
        limits.firstRequestTimeout = .milliseconds(300)
        limits.idleTimeout = .seconds(3600)  // the asking one stays however slow the test
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        let silent = try await SilentConnection.open(port: node.port)
        let asking = try await SilentConnection.open(
            port: node.port,
            request:
                "GET /status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(node.token)\r\n\r\n")
        #expect(await silent.closedByServer(within: 10), "a silent connection was kept")
        #expect(!(await asking.closedByServer(within: 1)))
        await asking.close()
    }

    /// Issue 60, class 6: a request refused on its head (no token) is answered and its
    /// connection closed, however much body it announced; one that is still sending its
    /// body after `bodyTimeout` is cut. Only those limits can close them here.
    @Test func aRefusedHeadIsAnsweredAndClosedAndASlowBodyIsCut() async throws {
        var limits = ConnectionLimits()
        (limits.firstRequestTimeout, limits.idleTimeout) = (.seconds(3600), .seconds(3600))
        limits.bodyTimeout = .milliseconds(400)
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        let unauthenticated = try await SilentConnection.open(
            port: node.port,
            request: "POST /changes HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\nab")
        #expect(
            await unauthenticated.closedByServer(within: 5),
            "a refused connection was held for the body it announced")
        let slow = try await SilentConnection.open(
            port: node.port,
            request: "POST /changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(node.token)"
                + "\r\nContent-Length: 1000\r\n\r\n[")
        #expect(await slow.closedByServer(within: 10), "a stalled body held its connection")
        // A request whose body ended is answered and its connection kept past the timeout.
        let body =
            #"[{"record_id":"r","col_name":"c","value":1,"col_version":1,"#
            + #""db_version":1,"node_id":9,"local_db_version":1}]"#
        let honest = try await SilentConnection.open(
            port: node.port,
            request: "POST /changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(node.token)"
                + "\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(!(await honest.closedByServer(within: 1)), "a finished request was cut")
        await honest.close()
        #expect(try await node.send("/status").status == 200)
    }
}
