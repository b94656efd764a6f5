import AsyncHTTPClient
import Foundation
import Logbook
import NIOCore

extension HTTPReplicationTransport: PushTransport {
    /// `POST /log` with the batches as the body: a hub answers after its commit with
    /// `{"received": N, "accepted": A, "hub_version": V}`; anything but 200 throws.
    public func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt {
        var request = authorized(HTTPClientRequest(url: "\(peerName)/log"))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: batches))
        let response = try await transfer(request, within: pushTimeout, bodyBytesMax: 1 << 16)
        guard response.status == .ok else {
            throw ReplicationError(
                message: "\(peerName): push of \(changeCount) changes refused with "
                    + "\(response.status.code) " + String(buffer: response.body).prefix(300))
        }
        struct Answer: Decodable {
            var accepted: Int
            var hubVersion: UInt64?
            enum CodingKeys: String, CodingKey {
                case accepted
                case hubVersion = "hub_version"
            }
        }
        do {
            let answer = try JSONDecoder().decode(
                Answer.self, from: Data(response.body.readableBytesView))
            return PushReceipt(accepted: answer.accepted, peerVersion: answer.hubVersion)
        } catch {
            throw ReplicationError(
                message: "\(peerName): the push's answer is not a receipt: \(error)")
        }
    }
}
