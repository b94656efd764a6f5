import AsyncHTTPClient
import Logbook
import NIOCore
import NIOHTTP1

extension HTTPReplicationTransport {
    /// A whole answer: status, headers and the body read to its end.
    struct Transferred: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// A response read whole, or one whose body is a streamed follow, left open.
    enum Opened: Sendable {
        case whole(Transferred)
        case stream(HTTPClientResponse)
    }

    /// Sends `request` and reads its whole answer, at most `bodyBytesMax` bytes, within
    /// `timeout` from start to last byte (`withinDeadline`: a peer that trickles its body
    /// would otherwise hold the pull for ever).
    func transfer(_ request: HTTPClientRequest, within timeout: Duration, bodyBytesMax: Int)
        async throws -> Transferred
    {
        let opened = try await open(
            request, within: timeout, bodyBytesMax: bodyBytesMax, keepsStreams: false)
        guard case .whole(let answer) = opened else {
            throw ReplicationError(message: "\(peerName): an answer was streamed unasked")
        }
        return answer
    }

    /// As `transfer`, except that a 200 answer of `FollowFrame.contentType` is handed over
    /// once its head arrives, its body unread (`FollowStream` reads it frame by frame, each
    /// under its own bound).
    func transferOrStream(
        _ request: HTTPClientRequest, within timeout: Duration, bodyBytesMax: Int
    ) async throws -> Opened {
        try await open(request, within: timeout, bodyBytesMax: bodyBytesMax, keepsStreams: true)
    }

    private func open(
        _ request: HTTPClientRequest, within timeout: Duration, bodyBytesMax: Int,
        keepsStreams: Bool
    ) async throws -> Opened {
        let client = self.client
        let headTimeout = TimeAmount(timeout)  // NIO's conversion clamps instead of trapping
        return try await withinDeadline(
            timeout, else: "\(peerName): no complete answer within \(timeout)"
        ) {
            let response = try await client.execute(request, timeout: headTimeout)
            if keepsStreams, response.status == .ok,
                response.headers.first(name: "Content-Type") == FollowFrame.contentType
            {
                return .stream(response)
            }
            let body = try await response.body.collect(upTo: bodyBytesMax)
            return .whole(
                Transferred(status: response.status, headers: response.headers, body: body))
        }
    }
}
