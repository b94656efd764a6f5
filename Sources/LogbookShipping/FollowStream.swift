import AsyncHTTPClient
import Foundation
import Logbook
import NIOCore

/// One open streamed follow (`FollowFrame`): a reader task that reads the response's body
/// into frames, one ahead of the fetches that take them, and the offset the next frame
/// taken starts at. A fetch's wait for a frame is bounded by the shared `DeadlineSweeper`
/// rather than a timer and two tasks of its own: a follower pays two hand-offs per frame.
/// Dropping the stream cancels its reader, which cancels the request.
final class FollowStream: @unchecked Sendable {
    // @unchecked: one fetch at a time uses it — `FollowStreams` hands it out and takes it
    // back, and a fetch that fails or is cancelled drops it.
    private let mailbox = FollowFrameMailbox()
    private let reader: Task<Void, Never>
    /// Where the next frame starts (the offset a fetch must ask from to read it).
    private(set) var position: UInt64
    /// The bytes asked for per frame (a fetch asking for another amount opens a new stream).
    let maxBytes: Int
    /// The response's `Logbook-Epoch`: a hub ends the stream before a frame in another
    /// epoch, so it is every frame's.
    let epoch: UInt64?

    /// A stream of `response`'s frames, each refused when it announces a payload above
    /// `payloadBytesMax`.
    init(_ response: HTTPClientResponse, position: UInt64, maxBytes: Int, payloadBytesMax: Int) {
        self.position = position
        self.maxBytes = maxBytes
        epoch = response.headers.first(name: ShippingHeaders.epoch).flatMap(UInt64.init)
        reader = Task { [mailbox, body = response.body] in
            var frames = FrameReader(body: body.makeAsyncIterator())
            while true {
                do {
                    let frame = try await frames.next(payloadBytesMax: payloadBytesMax)
                    await mailbox.deliver(.success(frame), last: frame == nil)
                    if frame == nil { return }
                } catch {
                    await mailbox.deliver(.failure(error), last: true)
                    return
                }
            }
        }
    }

    deinit { reader.cancel() }

    /// The next frame, within `timeout`; nil when the peer ended the stream between frames.
    /// Throws when the stream was cut inside a frame, is not frames, announces a payload
    /// above the bound, or stays silent past `timeout` (the peer writes at least an empty
    /// frame per long-poll wait, so silence means it is gone).
    func next(within timeout: Duration, peer: String) async throws -> FollowFrame? {
        let (mailbox, wait) = (mailbox, mailbox.nextWait())
        let deadline = DeadlineSweeper.shared.register(deadline: .now + timeout) {
            mailbox.fail(
                wait: wait, ReplicationError(message: "\(peer): no frame within \(timeout)"))
        }
        defer { DeadlineSweeper.shared.cancel(deadline) }
        let frame = try await mailbox.take(wait: wait)
        if let frame, !frame.payload.isEmpty { position = frame.nextOffset }
        return frame
    }
}

/// Frames from a streamed follow's body: the bytes of a frame not yet whole are kept
/// between reads.
private struct FrameReader {
    var body: HTTPClientResponse.Body.AsyncIterator
    var pending = ByteBuffer()

    /// The next frame; nil when the body ended between frames.
    mutating func next(payloadBytesMax: Int) async throws -> FollowFrame? {
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
