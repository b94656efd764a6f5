import AsyncHTTPClient
import Logbook
import NIOCore

extension HTTPReplicationTransport {
    /// A long poll over a streamed follow (`FollowFrame`): the next frame of the stream kept
    /// open when it is at `offset`, else the first frame of a new one from `url`, or, from a
    /// peer that does not stream, its plain answer. A stream that fails is dropped; the
    /// session's next fetch opens another from its durable cursor.
    func follow(_ url: String, from offset: UInt64, maxBytes: Int, wait: Duration) async throws
        -> BatchAnswer
    {
        let timeout = transferTimeout + wait
        let payloadBytesMax = maxBytes + batchBodySlack
        if let open = followStreams.take(at: offset, maxBytes: maxBytes),
            let frame = try await open.next(within: timeout, peer: peerName)
        {
            followStreams.keep(open)
            return .batches(frame.batches(epoch: open.epoch))
        }
        // No stream at this offset, or the peer ended it between frames: open one.
        let opened = try await transferOrStream(
            authorized(HTTPClientRequest(url: url)), within: timeout,
            bodyBytesMax: payloadBytesMax)
        switch opened {
        case .whole(let response):
            return try batchAnswer(response)
        case .stream(let response):
            followStreams.noteOpened()
            let stream = FollowStream(
                response, position: offset, maxBytes: maxBytes, payloadBytesMax: payloadBytesMax)
            guard let frame = try await stream.next(within: timeout, peer: peerName) else {
                throw ReplicationError(
                    message: "\(peerName): the streamed follow ended before its first frame")
            }
            followStreams.keep(stream)
            return .batches(frame.batches(epoch: stream.epoch))
        }
    }

    /// Closes the streamed follow kept open, if any (the peer stops writing to it). A
    /// transport that is dropped closes it too.
    public func closeFollowStream() { followStreams.close() }
}
