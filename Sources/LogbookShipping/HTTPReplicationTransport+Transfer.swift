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

    /// Sends `request` and reads its whole answer, at most `bodyBytesMax` bytes, within
    /// `timeout` from start to last byte. AsyncHTTPClient's own timeout ends when the answer
    /// begins, so a peer that trickles its body would otherwise hold the pull for ever.
    func transfer(_ request: HTTPClientRequest, within timeout: Duration, bodyBytesMax: Int)
        async throws -> Transferred
    {
        let client = self.client
        let peer = peerName
        let headTimeout = TimeAmount(timeout)  // NIO's conversion clamps instead of trapping
        return try await withThrowingTaskGroup(of: Transferred?.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: headTimeout)
                let body = try await response.body.collect(upTo: bodyBytesMax)
                return Transferred(status: response.status, headers: response.headers, body: body)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }  // the loser: the sleep, or the cut-off transfer
            guard let first = try await group.next(), let answer = first else {
                throw ReplicationError(message: "\(peer): no complete answer within \(timeout)")
            }
            return answer
        }
    }
}
