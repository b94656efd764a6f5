import Foundation
import HTTPTypes
import Hummingbird
import Logbook
import LogbookShipping
import NIOCore

/// The replication protocol a node's sessions speak, on each stream: the routes of a node's
/// `ShippingServer` under `/streams/S/`, so `HTTPReplicationTransport` pulls a stream as it
/// pulls a peer, plus `POST log` for pushes.
///
/// - `GET log?from=OFFSET&max_bytes=N[&wait_ms=W]`: the changes after the reader at OFFSET
///   as shipped batches (`HubOffsets`), with `Logbook-Next-Offset`, `Logbook-Durable-Offset`
///   `Logbook-Batch-Count` and `Logbook-Epoch` (the epoch holding the last version the
///   answer covers); 410 below the GC horizon, 409 when OFFSET is past the stream or, with
///   `epoch=E` (the reader's last `Logbook-Epoch`), another epoch holds its version now (the
///   database was restored from an older copy).
///   With `wait_ms`, an answer with nothing new waits for a merge into the stream
///   (`HubChangeNotifier`) up to that long; with `wait_ms` and `frames=1` it is a streamed
///   follow (`FollowFrame`, `writeFrames`).
/// - `GET snapshot?page_changes=N[&after=ID][&format=batches]`: the state as crdt-lite JSON
///   (or shipped batches, `StatePageResponse`), whole records in id order, with `Logbook-Next-Offset` (the position it covers) and, when more pages
///   follow, `Logbook-Snapshot-After`.
/// - `POST ack`: `{"node": ID, "offset": N, ...}`, stored per stream and node (204): it
///   registers the node with the stream's GC, which then waits for its `settled` and
///   `listed_collected_below` (a read-only node holds tombstones too).
/// - `GET collectable?from=V`: the tombstones nodes may collect (`CollectableTombstones`,
///   JSON `CollectableTombstonesMessage`).
/// - `POST log[?pushed_version=V&pushed_epoch=E]`: shipped batches, checked whole, merged
///   in one transaction and answered after the commit as `POST changes` is, with the epoch
///   of the merge's version; 409 after the merge when the stream no longer holds version V
///   in epoch E, where the pusher's earlier pushes were merged (`HubStore.merge(batches:
///   into:after:)`).
extension HubServer {
    func addReplicationRoutes(to router: Router<BasicRequestContext>) {
        router.get("streams/:stream/log") { request, context in
            try await self.log(request, stream: try self.streamName(context))
        }
        router.post("streams/:stream/log") { request, context in
            try await self.push(request, stream: try self.streamName(context))
        }
        router.get("streams/:stream/snapshot") { request, context in
            try await self.snapshot(request, stream: try self.streamName(context))
        }
        router.get("streams/:stream/collectable") { request, context in
            try await self.collectable(request, stream: try self.streamName(context))
        }
        router.post("streams/:stream/ack") { request, context in
            try await self.acknowledge(request, stream: try self.streamName(context))
        }
    }

    private func log(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: false)
        let query = request.uri.queryParameters
        guard let from = query.get("from", as: UInt64.self) else {
            throw HTTPError(.badRequest, message: "from must be an offset (an unsigned integer)")
        }
        let asked = try query.positive("max_bytes") ?? configuration.responseBytesMax
        var wait = Duration.zero
        if let milliseconds = try query.milliseconds("wait_ms") {
            wait = min(.milliseconds(milliseconds), configuration.logWaitMax)
        }
        let epoch = try query.unsigned("epoch")
        let maxBytes = min(asked, configuration.responseBytesMax)
        let deadline = ContinuousClock.now + wait
        // The merge count first, then the read: a merge committed after the read moves it.
        var generation = notifier.generation(of: stream.id)
        let page = HubReadCache.PageKey(
            stream: stream.id, offset: from, epoch: epoch, maxBytes: maxBytes)
        var batches = try await batches(in: stream, page, generation)
        if query.get("frames") == "1", wait > .zero {
            let follow = StreamedFollow(
                token: Self.bearerToken(of: request), stream: stream, maxBytes: maxBytes,
                wait: wait,
                first: batches, generation: generation)
            var headers: HTTPFields = [.contentType: FollowFrame.contentType]
            // Every frame of the stream is in this epoch: the stream ends before one that is
            // not, and the follower asks again (`writeFrames`).
            headers[.logbookEpoch] = batches.epoch.map(String.init)
            return Response(
                status: .ok, headers: headers,
                body: .init { writer in try await self.writeFrames(follow, to: &writer) })
        }
        // A long poll: wait for a merge into the stream, then read again, while nothing is
        // new and the wait lasts.
        while batches.batchCount == 0, ContinuousClock.now < deadline,
            !Task.isShuttingDownGracefully
        {
            await notifier.waitForMerge(
                into: stream.id, after: generation, timeout: deadline - ContinuousClock.now)
            generation = notifier.generation(of: stream.id)
            batches = try await self.batches(in: stream, page, generation)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.logbookDurableOffset] = String(
            batches.durableOffset)
        headers[.logbookNextOffset] = String(batches.nextOffset)
        headers[.logbookBatchCount] = String(batches.batchCount)
        headers[.logbookEpoch] = batches.epoch.map(String.init)
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: batches.bytes)))
    }

    /// The stream's batches from the page's offset, read at merge count `generation` or
    /// later: shared with other followers at the same position while notifications arrive,
    /// read afresh while they do not (the count may not have moved with a merge then). The
    /// read itself carries the database bound, so a request sharing it waits no longer, and
    /// one served from memory arms no timer.
    func batches(
        in stream: HubStream, _ page: HubReadCache.PageKey, _ generation: UInt64
    ) async throws -> FetchedBatches {
        let limit = configuration.databaseWaitMax
        let read: @Sendable () async throws -> FetchedBatches = { [store] in
            try await DatabaseDeadline.run(within: limit) {
                try await store.batches(
                    in: stream, from: page.offset, epoch: page.epoch, maxBytes: page.maxBytes)
            }
        }
        guard notifier.isListening else { return try await mappingErrors(read) }
        return try await mappingErrors {
            try await cache.batches(page, generation: generation, read: read)
        }
    }

    private func snapshot(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: false)
        let query = request.uri.queryParameters
        let asked = try query.positive("page_changes") ?? 10_000
        let after = query.get("after")  // already percent-decoded
        // A page of more than 16,384 changes is a large answer, as on a node.
        return try await largeAnswers.answer(changesAsked: asked) {
            let page = try await mapped {
                try await store.statePage(
                    in: stream, after: after,
                    changesMax: min(asked, configuration.changesPerResponseMax))
            }
            // Whole records in id order, as the statement gives them.
            var response = try await StatePageResponse.response(
                page.changes, request: request, changesMax: Int.max, sortingJSON: false)
            if let next = page.nextAfter {
                response.headers[.logbookSnapshotAfter] =
                    next.addingPercentEncoding(
                        withAllowedCharacters: ShippingServer.unreservedASCII) ?? ""
            }
            response.headers[.logbookNextOffset] = String(page.covered)
            response.headers[.logbookEpoch] = page.epoch.map(String.init)
            return response
        }
    }

    private func collectable(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: false)
        guard let from = request.uri.queryParameters.get("from", as: UInt64.self) else {
            throw HTTPError(.badRequest, message: "expected ?from=V (a hub version)")
        }
        let list = try await mapped { try await store.collectable(in: stream, from: from) }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: try CollectableTombstonesMessage.encode(list)))
        )
    }

    private func acknowledge(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: false)
        let ack = try AcknowledgementMessage.decode(
            try await ChangeJSONMessages.body(of: request, bytesMax: 1 << 16))
        _ = try await mapped {
            try await store.acknowledge(ack, in: stream)
        }
        return Response(status: .noContent)
    }

    private func push(_ request: Request, stream name: String) async throws -> Response {
        let stream = try await authorize(request, stream: name, write: true)
        let earlier = try Self.earlierPushes(of: request)
        let body = try await ChangeJSONMessages.body(
            of: request, bytesMax: configuration.requestBytesMax)
        let report = try await mapped {
            try await store.merge(batches: [UInt8](body), into: stream, after: earlier)
        }
        return Self.receipt(report)
    }

    /// `pushed_version=V[&pushed_epoch=E]`: where the pusher's earlier pushes were merged,
    /// as their receipt said; nil when the push does not say.
    static func earlierPushes(of request: Request) throws -> PeerPosition? {
        let query = request.uri.queryParameters
        guard let version = try query.unsigned("pushed_version") else { return nil }
        return PeerPosition(version: version, epoch: try query.unsigned("pushed_epoch"))
    }

    /// `{"received", "accepted", "hub_version"[, "epoch"]}`: what a push's sender is told
    /// after the commit.
    static func receipt(_ report: HubMergeReport) -> Response {
        let accepted = report.acceptedCells + report.acceptedDeletions
        var text =
            #"{"received": \#(report.received), "accepted": \#(accepted), "hub_version": \#(report.hubVersion)"#
        if let epoch = report.epoch { text += #", "epoch": \#(epoch)"# }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text + "}")))
    }
}
