import AsyncHTTPClient
import Foundation
import Logbook
import NIOCore

extension HTTPReplicationTransport: PushTransport {
    /// `POST /log` with the batches as the body: a hub answers after its commit with
    /// `{"received": N, "accepted": A, "hub_version": V[, "epoch": E]}`; anything but 200
    /// throws.
    public func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt {
        try await push(batches, changeCount: changeCount, after: nil)
    }

    /// `POST /log?pushed_version=V&pushed_epoch=E`: 409 (the hub no longer holds where it
    /// merged the earlier pushes, and merged this one) throws `PeerLostPushes`.
    public func push(_ batches: [UInt8], changeCount: Int, after earlier: PeerPosition?)
        async throws -> PushReceipt
    {
        var url = "\(peerName)/log"
        if let earlier {
            url += "?pushed_version=\(earlier.version)"
            if let epoch = earlier.epoch { url += "&pushed_epoch=\(epoch)" }
        }
        var request = authorized(HTTPClientRequest(url: url))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: batches))
        let response = try await transfer(request, within: pushTimeout, bodyBytesMax: 1 << 16)
        if response.status == .conflict {
            throw PeerLostPushes(
                reason: "\(peerName): " + peerText(response.body))
        }
        guard response.status == .ok else {
            throw ReplicationError(
                message: "\(peerName): push of \(changeCount) changes refused with "
                    + "\(response.status.code) " + peerText(response.body))
        }
        struct Answer: Decodable {
            var accepted: Int
            var hubVersion: UInt64?
            var epoch: UInt64?
            enum CodingKeys: String, CodingKey {
                case accepted, epoch
                case hubVersion = "hub_version"
            }
        }
        do {
            let answer = try JSONDecoder().decode(
                Answer.self, from: Data(response.body.readableBytesView))
            return PushReceipt(
                accepted: answer.accepted, peerVersion: answer.hubVersion, peerEpoch: answer.epoch)
        } catch {
            throw ReplicationError(
                message: "\(peerName): the push's answer is not a receipt: \(error)")
        }
    }
}
