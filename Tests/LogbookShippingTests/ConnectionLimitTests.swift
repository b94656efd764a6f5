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

        static func open(port: Int) async throws -> SilentConnection {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
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

    @Test func onePastTheLimitIsClosedAndTheNodeServesOnceTheFloodEnds() async throws {
        var limits = ConnectionLimits()
        limits.connectionsMax = 3
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
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        let idle = try await SilentConnection.open(port: node.port)
        #expect(await idle.closedByServer(within: 10), "an idle connection outlived its timeout")
        // Held four times the idle timeout waiting for a write, then answered.
        try await node.logbook.insertOrUpdate("e/a", fields: [("n", 1)])
        try node.logbook.sync()
        let end = node.logbook.durableOffset
        let started = ContinuousClock.now
        async let poll = node.send("/log?from=\(end)&wait_ms=5000")
        try await Task.sleep(for: .milliseconds(1200))
        try await node.logbook.insertOrUpdate("e/b", fields: [("n", 2)])
        try node.logbook.sync()
        let answer = try await poll
        #expect(answer.status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(1200))
    }

    @Test func aConnectionThatSendsNothingIsClosedOneThatAskedIsNot() async throws {
        var limits = ConnectionLimits()
        limits.firstRequestTimeout = .milliseconds(300)
        let node = try TestNode(node: 1)
        defer { node.stop() }
        try await node.start(connections: limits)
        let silent = try await SilentConnection.open(port: node.port)
        let asking = try await SilentConnection.open(port: node.port)
        let request =
            "GET /status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(node.token)\r\n\r\n"
        try await asking.channel.writeAndFlush(ByteBuffer(string: request))
        #expect(await silent.closedByServer(within: 10), "a silent connection was kept")
        // Answered, then idle for less than the 75 s idle timeout: still open.
        #expect(!(await asking.closedByServer(within: 1)))
        await asking.close()
    }
}
