import AsyncHTTPClient
import Foundation
import Logbook
import NIOCore

/// One open streamed follow (`FollowFrame`): the response whose body brings frames, the
/// bytes of a frame not yet whole, and the offset the next frame starts at.
final class FollowStream: @unchecked Sendable {
    // @unchecked: one fetch at a time uses it — `FollowStreams` hands it out and takes it
    // back, and a fetch that fails or is cancelled drops it.
    private var body: HTTPClientResponse.Body.AsyncIterator
    private var pending = ByteBuffer()
    /// Where the next frame starts (the offset a fetch must ask from to read it).
    private(set) var position: UInt64
    /// The bytes asked for per frame (a fetch asking for another amount opens a new stream).
    let maxBytes: Int

    init(_ response: HTTPClientResponse, position: UInt64, maxBytes: Int) {
        body = response.body.makeAsyncIterator()
        self.position = position
        self.maxBytes = maxBytes
    }

    /// The next frame, within `timeout`; nil when the peer ended the stream between frames.
    /// Throws when the stream was cut inside a frame, is not frames, announces a payload
    /// above `payloadBytesMax`, or stays silent past `timeout` (the peer writes at least an
    /// empty frame per long-poll wait, so silence means it is gone).
    func next(payloadBytesMax: Int, within timeout: Duration, peer: String) async throws
        -> FollowFrame?
    {
        let frame = try await withinDeadline(timeout, else: "\(peer): no frame within \(timeout)") {
            try await self.read(payloadBytesMax: payloadBytesMax)
        }
        if let frame, !frame.payload.isEmpty { position = frame.nextOffset }
        return frame
    }

    private func read(payloadBytesMax: Int) async throws -> FollowFrame? {
        while true {
            if let frame = try FollowFrame.take(from: &pending, payloadBytesMax: payloadBytesMax) {
                pending.discardReadBytes()
                return frame
            }
            guard var chunk = try await body.next() else {
                guard pending.readableBytes == 0 else {
                    throw ReplicationError(
                        message:
                            "the streamed follow ended inside a frame (\(pending.readableBytes) bytes of it arrived)"
                    )
                }
                return nil
            }
            pending.writeBuffer(&chunk)
        }
    }
}

/// The open streamed follow a transport keeps between fetches, so a session's next fetch
/// (from where the last frame ended) reads the next frame instead of sending a request.
final class FollowStreams: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock` (NSLock, not Synchronization's Mutex,
    // which needs macOS 15 where the package supports macOS 14).
    private let lock = NSLock()
    private var open: FollowStream?
    private var opened = 0

    /// How many streams were opened (each is one request to the peer).
    var openedCount: Int { lock.withLock { opened } }

    /// The open stream when it is at `offset` with frames of `maxBytes`, taken out (a
    /// concurrent fetch then opens its own); any other is closed.
    func take(at offset: UInt64, maxBytes: Int) -> FollowStream? {
        let held = lock.withLock {
            defer { open = nil }
            return open
        }
        // A stream not handed out is dropped here, which cancels its request.
        guard let held, held.position == offset, held.maxBytes == maxBytes else { return nil }
        return held
    }

    /// Keeps `stream` for the next fetch (closing one kept meanwhile).
    func keep(_ stream: FollowStream) {
        let replaced = lock.withLock {
            defer { open = stream }
            return open
        }
        _ = replaced  // released outside the lock
    }

    /// Notes that a stream was opened.
    func noteOpened() { lock.withLock { opened += 1 } }

    /// Closes the open stream, if any.
    func close() {
        let closed = lock.withLock {
            defer { open = nil }
            return open
        }
        _ = closed  // released outside the lock
    }
}
