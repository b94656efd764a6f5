import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import NIOCore
import NIOHTTP1

/// Replication over HTTP: `GET /log`, `GET /snapshot?page_changes=`, `POST /ack` on a
/// Logbook node served by `ShippingServer`, with the node's bearer token — or on a hub's
/// stream (`http://HUB/streams/S`), which also takes pushes (`POST /log`). Every transfer,
/// from request to last byte, runs under one deadline.
public struct HTTPReplicationTransport: ReplicationTransport {
    /// The peer's base URL, e.g. `http://127.0.0.1:7000`.
    public let peerName: String
    let token: String
    let client: HTTPClient
    /// The longest one fetch of batches may take, from request to last byte (plus the long
    /// poll's wait); a slower peer fails it.
    public var transferTimeout = Duration.seconds(30)
    /// The longest a state page may take, from request to last byte.
    public var snapshotTimeout = Duration.seconds(300)
    /// The largest state page accepted.
    public var snapshotBytesMax = 1 << 30
    /// How far an answer to a fetch of batches may exceed the bytes asked for: a node
    /// sends whole batches (at least one, each at most 16 MiB), a hub whole versions.
    public var batchBodySlack = 1 << 20
    /// The longest a push may take, from request to the hub's answer after its commit.
    public var pushTimeout = Duration.seconds(60)
    /// Whether long polls ask for a streamed follow (`FollowFrame`): one response that
    /// brings an answer per merge. A peer that does not stream answers a plain long poll,
    /// which is taken as such.
    public var streamsFollows = true
    /// The streamed follow kept open between fetches.
    let followStreams = FollowStreams()

    /// A transport to the node at `peer` (a trailing slash is dropped).
    public init(peer: String, token: String, client: HTTPClient = .shared) {
        peerName = peer.hasSuffix("/") ? String(peer.dropLast()) : peer
        self.token = token
        self.client = client
    }

    /// `GET /log?from=&max_bytes=[&epoch=][&wait_ms=]`: 410 is `.snapshotRequired`, 409
    /// `.diverged`, any other failure throws. With `wait` (and `streamsFollows`), asks for
    /// a streamed follow and reads its frames over the following fetches.
    public func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
        async throws -> BatchAnswer
    {
        var url = "\(peerName)/log?from=\(offset)&max_bytes=\(maxBytes)"
        if let epoch { url += "&epoch=\(epoch)" }
        guard let wait else {
            let response = try await transfer(
                authorized(HTTPClientRequest(url: url)), within: transferTimeout,
                bodyBytesMax: maxBytes + batchBodySlack)
            return try batchAnswer(response)
        }
        url += "&wait_ms=\(TimeAmount(wait).nanoseconds / 1_000_000)"
        guard streamsFollows, wait > .zero else {
            let response = try await transfer(
                authorized(HTTPClientRequest(url: url)), within: transferTimeout + wait,
                bodyBytesMax: maxBytes + batchBodySlack)
            return try batchAnswer(response)
        }
        return try await follow(url + "&frames=1", from: offset, maxBytes: maxBytes, wait: wait)
    }

    /// The answer a whole `GET /log` response gives.
    func batchAnswer(_ response: Transferred) throws -> BatchAnswer {
        let reason = { peerText(response.body) }
        if response.status == .gone { return .snapshotRequired(reason: String(reason())) }
        if response.status == .conflict { return .diverged(reason: String(reason())) }
        guard response.status == .ok else {
            throw ReplicationError(message: "\(peerName): \(response.status.code) \(reason())")
        }
        let header = { (name: String) in response.headers.first(name: name).flatMap(UInt64.init) }
        guard let durable = header(ShippingHeaders.durableOffset),
            let next = header(ShippingHeaders.nextOffset)
        else {
            throw ReplicationError(
                message: "\(peerName): the answer lacks the Logbook offset headers")
        }
        return .batches(
            FetchedBatches(
                bytes: Array(response.body.readableBytesView),
                batchCount: header(ShippingHeaders.batchCount).map { Int(clamping: $0) } ?? 0,
                durableOffset: durable, nextOffset: next,
                startOffset: header(ShippingHeaders.startOffset),
                nodeId: header(ShippingHeaders.nodeId), epoch: header(ShippingHeaders.epoch)))
    }

    /// `GET /snapshot?page_changes=&after=&format=batches`, decoded as shipped batches
    /// (`StatePageBatches`), or from crdt-lite JSON when the peer answers that (a hub, or a
    /// node from before the binary form); the position from `Logbook-Next-Offset`,
    /// `Logbook-Epoch`, `Logbook-Node-Id`.
    public func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage {
        var url =
            "\(peerName)/snapshot?page_changes=\(changesMax)&format=\(StatePageBatches.formatName)"
        if let after { url += "&after=\(after)" }  // percent-encoded as the peer sent it
        let response = try await transfer(
            authorized(HTTPClientRequest(url: url)), within: snapshotTimeout,
            bodyBytesMax: snapshotBytesMax)
        let header = { (name: String) in response.headers.first(name: name) }
        guard response.status == .ok,
            let covered = header(ShippingHeaders.nextOffset).flatMap(UInt64.init)
        else {
            throw ReplicationError(
                message: "\(peerName): snapshot refused with \(response.status.code)")
        }
        return StatePage(
            changes: try stateChanges(
                in: response,
                inBatches: header("Content-Type")?.hasPrefix(StatePageBatches.mediaType) == true),
            nextAfter: header(ShippingHeaders.snapshotAfter), covered: covered,
            epoch: header(ShippingHeaders.epoch).flatMap(UInt64.init),
            nodeId: header(ShippingHeaders.nodeId).flatMap(UInt64.init))
    }

    /// A state page's changes, refused whole when the body is not what it says it is.
    private func stateChanges(in response: Transferred, inBatches: Bool) throws
        -> [Change<String, String, Value>]
    {
        let bytes = Array(response.body.readableBytesView)
        guard inBatches else {
            do {
                return try JSONDecoder().decode(
                    [Change<String, String, Value>].self, from: Data(bytes))
            } catch {
                throw ReplicationError(
                    message: "\(peerName): the snapshot is not crdt-lite JSON: \(error)")
            }
        }
        do {
            // Decompressed, a page may not grow past what a JSON page could bring.
            return try StatePageBatches.decode(bytes, rawBytesMax: snapshotBytesMax)
        } catch {
            throw ReplicationError(message: "\(peerName): state page refused: \(error)")
        }
    }

    /// A hub's `GET collectable?from=V` (`CollectableTombstonesMessage`); anything but 200
    /// throws.
    public func fetchCollectable(from version: UInt64) async throws -> CollectableTombstones {
        let response = try await transfer(
            authorized(HTTPClientRequest(url: "\(peerName)/collectable?from=\(version)")),
            within: snapshotTimeout, bodyBytesMax: snapshotBytesMax)
        guard response.status == .ok else {
            throw ReplicationError(
                message: "\(peerName): list of collectable tombstones refused with "
                    + "\(response.status.code) " + peerText(response.body))
        }
        return try CollectableTombstonesMessage.decode(
            Data(response.body.readableBytesView), from: peerName)
    }

    /// `POST /ack`; anything but 204 throws.
    public func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws {
        var request = authorized(HTTPClientRequest(url: "\(peerName)/ack"))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        var body = #"{"node": \#(acknowledgement.node), "offset": \#(acknowledgement.offset)"#
        if let epoch = acknowledgement.epoch { body += #", "epoch": \#(epoch)"# }
        if let logEnd = acknowledgement.logEnd { body += #", "log_end": \#(logEnd)"# }
        if let collected = acknowledgement.collectedBelow {
            body += #", "collected_below": \#(collected)"#
        }
        if let settled = acknowledgement.settled { body += #", "settled": \#(settled)"# }
        if let listed = acknowledgement.listedCollectedBelow {
            body += #", "listed_collected_below": \#(listed)"#
        }
        request.body = .bytes(ByteBuffer(string: body + "}"))
        let response = try await transfer(request, within: .seconds(10), bodyBytesMax: 1 << 16)
        guard response.status == .noContent else {
            throw ReplicationError(
                message: "\(peerName): acknowledgement refused with \(response.status.code) "
                    + peerText(response.body))
        }
    }

    func authorized(_ request: HTTPClientRequest) -> HTTPClientRequest {
        var request = request
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        return request
    }
}
