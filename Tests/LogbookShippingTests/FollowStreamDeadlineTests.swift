import Foundation
import HTTPTypes
import Hummingbird
import Logbook
import NIOCore
import Testing

@testable import LogbookShipping

// A streamed follow's frames are read by one reader task per stream, and each fetch's wait
// for a frame is bounded by the shared sweeper instead of a timer of its own. These tests
// hold the bound against peers that go silent, trickle a frame, or are left mid-wait. The
// suite's limit catches a hang; it is wall time including waits for a thread of the pool,
// which reached 80 s in a CI run with every test running at once on two cores.
@Suite(.timeLimit(.minutes(10))) struct FollowStreamDeadlineTests {
    /// A peer whose `GET /log` answers frames: the frames `frames` gives, written `pause`
    /// apart, then silence.
    static func framingPeer(
        _ frames: [ByteBuffer], pause: Duration = .zero
    ) async -> (port: Int, task: Task<Void, any Error>) {
        let router = Router()
        router.get("log") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = FollowFrame.contentType
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    for frame in frames {
                        try await writer.write(frame)
                        try await Task.sleep(for: pause)
                    }
                    try await Task.sleep(for: .seconds(3600))
                })
        }
        return await serve(router)
    }

    static func emptyFrame(at offset: UInt64) throws -> ByteBuffer {
        try #require(
            FollowFrame(payload: [], batchCount: 0, nextOffset: offset, durableOffset: offset)
                .encoded())
    }

    static func transport(port: Int) -> HTTPReplicationTransport {
        var transport = HTTPReplicationTransport(peer: "http://127.0.0.1:\(port)", token: "t")
        // Not less: opening the stream is bounded by it too, and the whole suite shares two
        // cores.
        transport.transferTimeout = .seconds(3)
        return transport
    }

    /// Expects the next fetch to fail for want of a frame within its deadline.
    static func expectNoFrameWithinTheDeadline(_ transport: HTTPReplicationTransport) async {
        await #expect {
            _ = try await transport.fetchBatches(
                from: 0, epoch: nil, maxBytes: 1 << 16, wait: .milliseconds(200))
        } throws: { error in
            "\(error)".contains("no frame within")
        }
    }

    @Test func aStreamThatFallsSilentFailsTheWaitingFetchAtItsDeadline() async throws {
        let (port, peer) = await Self.framingPeer(
            [try Self.emptyFrame(at: 0), try Self.emptyFrame(at: 0)])
        defer { peer.cancel() }
        let transport = Self.transport(port: port)
        defer { transport.closeFollowStream() }
        for _ in 0..<2 {
            let answer = try await transport.fetchBatches(
                from: 0, epoch: nil, maxBytes: 1 << 16, wait: .milliseconds(200))
            guard case .batches(let batches) = answer, batches.bytes.isEmpty else {
                Issue.record("an empty frame was not read as no batches: \(answer)")
                return
            }
        }
        #expect(transport.followStreams.openedCount == 1, "two frames, one request")
        let started = ContinuousClock.now
        await Self.expectNoFrameWithinTheDeadline(transport)
        // The bound is 3.2 s (the transfer timeout and the wait); the slack is for the rest
        // of the suite on two cores (a waiting task held back 80 s in one CI run), and far
        // below the hour the peer stays silent.
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(3) && waited < .seconds(300), "\(waited)")
    }

    @Test func aFrameTrickledByteByByteFailsAtTheDeadline() async throws {
        let frame = try #require(
            FollowFrame(payload: [], batchCount: 0, nextOffset: 0, durableOffset: 0).encoded())
        let bytes = frame.readableBytesView.map { ByteBuffer(bytes: [$0]) }
        // 28 bytes, a second apart: 28 s for a frame whose bound is 3.2 s. The margin is
        // wide because the whole suite shares two cores: in one CI run synchronous tests
        // held both of Swift's cooperative threads long enough that this cut, 3.3 s when run
        // alone, was seen at 13.3 s (the frame still unfinished), and another held a waiting
        // task back 80 s. The throw below is what shows the cut came before the frame was
        // whole; the time, that it came no earlier than the bound, and no hang.
        let (port, peer) = await Self.framingPeer(bytes, pause: .seconds(1))
        defer { peer.cancel() }
        let transport = Self.transport(port: port)
        defer { transport.closeFollowStream() }
        let started = ContinuousClock.now
        await Self.expectNoFrameWithinTheDeadline(transport)
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(3) && waited < .seconds(300), "\(waited)")
    }

    @Test func aCancelledFetchThrowsAndTheNextOpensANewStream() async throws {
        let (port, peer) = await Self.framingPeer([try Self.emptyFrame(at: 0)])
        defer { peer.cancel() }
        var transport = Self.transport(port: port)
        transport.transferTimeout = .seconds(60)
        defer { transport.closeFollowStream() }
        _ = try await transport.fetchBatches(
            from: 0, epoch: nil, maxBytes: 1 << 16, wait: .milliseconds(200))
        let waiting = Task { [transport] in
            try await transport.fetchBatches(
                from: 0, epoch: nil, maxBytes: 1 << 16, wait: .milliseconds(200))
        }
        try await Task.sleep(for: .milliseconds(300))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        // The cancelled fetch dropped its stream: the next one asks the peer anew, and gets
        // the first frame of a new answer.
        _ = try await transport.fetchBatches(
            from: 0, epoch: nil, maxBytes: 1 << 16, wait: .milliseconds(200))
        #expect(transport.followStreams.openedCount == 2)
    }
}

// The sweeper on its own: a wait that ran out is ended, a cancelled one never is, and the
// sweeper stops when no wait is left.
@Suite struct DeadlineSweeperTests {
    final class Expirations: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var names: [String] = []
        func note(_ name: String) { lock.withLock { names.append(name) } }
        var noted: [String] { lock.withLock { names } }
    }

    @Test func aWaitThatRanOutIsEndedAndACancelledOneIsNot() async throws {
        let sweeper = DeadlineSweeper(interval: .milliseconds(10))
        let expirations = Expirations()
        let now = ContinuousClock.now
        _ = sweeper.register(deadline: now + .milliseconds(50)) { expirations.note("soon") }
        let cancelled = sweeper.register(deadline: now + .milliseconds(50)) {
            expirations.note("cancelled")
        }
        _ = sweeper.register(deadline: now + .seconds(3600)) { expirations.note("late") }
        sweeper.cancel(cancelled)
        for _ in 0..<500 where expirations.noted.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(expirations.noted == ["soon"])
        #expect(sweeper.registeredCount == 1, "the hour-long wait is still registered")
    }

    @Test func theSweeperStopsWhenNoWaitIsLeftAndAnotherStartsForTheNextWait() async throws {
        let sweeper = DeadlineSweeper(interval: .milliseconds(10))
        let expirations = Expirations()
        for round in 0..<2 {
            _ = sweeper.register(deadline: .now + .milliseconds(20)) {
                expirations.note("\(round)")
            }
            for _ in 0..<500 where expirations.noted.count <= round {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(expirations.noted == ["0", "1"])
        #expect(sweeper.registeredCount == 0)
        #expect(sweeper.sweepersStarted == 2, "the first stopped once its wait was ended")
    }
}
