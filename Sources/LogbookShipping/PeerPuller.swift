import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import NIOCore
import NIOHTTP1

/// Pulls a peer's log into a Logbook: from the durable cursor for that peer, batch bytes
/// verbatim, each body checked whole before its changes are merged, the cursor saved after
/// the merge, an acknowledgement sent back. A crash or a dropped connection at any point
/// loses nothing: the next pull starts from the last saved cursor, and merging the same
/// changes again changes nothing.
public struct PeerPuller: Sendable {
    /// Why a pull failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong.
        public var message: String
        /// A one-line explanation.
        public var description: String { message }
    }

    /// What one catch-up did.
    public struct Report: Sendable, Equatable {
        /// Requests answered with batches.
        public var pulls = 0
        /// Stored bytes received.
        public var bytes = 0
        /// Changes received and changes the CRDT accepted.
        public var received = 0
        /// Changes the CRDT accepted (the rest it had already).
        public var accepted = 0
        /// The peer's durable high watermark at the last answer.
        public var peerDurableOffset: UInt64 = 0
        /// The cursor after the catch-up.
        public var cursor: UInt64 = 0
        /// Snapshots taken because the cursor was below the peer's log start, or because
        /// the peer no longer held our position.
        public var snapshots = 0
        /// Times the peer answered that it does not hold our position (409 diverged): its
        /// log was restored from an older copy, or another log answers at its address.
        public var divergences = 0
    }

    let logbook: Logbook
    let peer: String
    let token: String
    let ledger: PeerLedger
    let client: HTTPClient
    /// The largest body asked for in one pull.
    public var bytesPerPull = 4 << 20
    /// The largest snapshot page accepted.
    public var snapshotBytesMax = 1 << 30
    /// Changes asked for per snapshot page (whole records, so a page may hold more).
    public var snapshotPageChanges = 10_000
    /// The most pages one snapshot may take: a peer that never ends it fails the pull.
    public var snapshotPagesMax = 1 << 20
    /// The longest one pull may take, from request to last byte (plus the long poll's
    /// wait); a slower peer fails the pull.
    public var transferTimeout = Duration.seconds(30)
    /// The longest a snapshot transfer may take, from request to last byte.
    public var snapshotTimeout = Duration.seconds(300)
    /// While pulls keep finding new batches, acknowledge at most this often (each
    /// acknowledgement costs the peer a durable ledger write); a catch-up that reaches the
    /// peer's high watermark always acknowledges before it returns.
    public var acknowledgementInterval = Duration.milliseconds(250)

    /// A puller from the node at `peer` (e.g. `http://127.0.0.1:7000`) into `logbook`.
    public init(
        logbook: Logbook, peer: String, token: String, ledger: PeerLedger,
        client: HTTPClient = .shared
    ) {
        self.logbook = logbook
        self.peer = peer.hasSuffix("/") ? String(peer.dropLast()) : peer
        self.token = token
        self.ledger = ledger
        self.client = client
    }

    /// Pulls until the cursor reaches the peer's durable high watermark. `onPull` sees the
    /// report after every pull whose changes are merged, durable and behind the durable
    /// cursor (replication progress, before the catch-up ends).
    public func catchUp(onPull: (Report) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        var cursor = ledger.cursor(for: peer)
        var acknowledged = ContinuousClock.now
        while true {
            let pulled = try await pull(from: cursor, epoch: ledger.epoch(for: peer), wait: nil)
            guard case .batches(let batches) = pulled else {
                // Below the peer's log start, or a position it does not hold: its state.
                if case .diverged = pulled { report.divergences += 1 }
                cursor = try await restoreFromSnapshot(&report)
                continue
            }
            report.peerDurableOffset = batches.durableOffset
            if batches.bytes.isEmpty {
                // Nothing new, but our log end and GC frontier may have moved: the peer's
                // fences wait for them, so acknowledge anyway.
                try await acknowledge(cursor)
                report.cursor = cursor
                return report
            }
            cursor = try await store(batches, from: cursor, into: &report)
            onPull(report)
            if cursor >= batches.durableOffset {
                try await acknowledge(cursor)
                return report
            }
            try await acknowledge(cursor, ifDueSince: &acknowledged)
        }
    }

    /// Follows the peer until the task is cancelled (or a pull fails, which throws): each
    /// request is a long poll (`wait_ms`) that the peer answers as soon as it has something
    /// durable past our cursor, and the next request is sent as soon as an answer arrives,
    /// so the peer prepares it while this node merges and syncs the last one. `onPull` sees
    /// the report of each pull (or snapshot) that moved the cursor, once it is durable, and
    /// a report with `pulls` 0 for each poll that waited in vain.
    public func follow(
        wait: Duration = .milliseconds(500), onPull: (Report) -> Void = { _ in }
    ) async throws {
        var cursor = ledger.cursor(for: peer)
        var acknowledged = ContinuousClock.now
        var inFlight = prefetch(from: cursor, epoch: ledger.epoch(for: peer), wait: wait)
        defer { inFlight.cancel() }
        while !Task.isCancelled {
            let pulled = try await inFlight.value
            var report = Report()
            guard case .batches(let batches) = pulled else {
                if case .diverged = pulled { report.divergences += 1 }
                cursor = try await restoreFromSnapshot(&report)
                report.cursor = cursor
                onPull(report)
                inFlight = prefetch(from: cursor, epoch: ledger.epoch(for: peer), wait: wait)
                continue
            }
            report.peerDurableOffset = batches.durableOffset
            guard !batches.bytes.isEmpty else {
                inFlight = prefetch(from: cursor, epoch: ledger.epoch(for: peer), wait: wait)
                report.cursor = cursor
                onPull(report)  // pulls 0: the peer had nothing new for a whole wait
                try await acknowledge(cursor, ifDueSince: &acknowledged)
                continue
            }
            inFlight = prefetch(from: batches.nextOffset, epoch: batches.epoch, wait: wait)
            cursor = try await store(batches, from: cursor, into: &report)
            onPull(report)
            try await acknowledge(cursor, ifDueSince: &acknowledged)
        }
    }

    /// One answer of `GET /log`: stored batches and the peer's offsets.
    struct PulledBatches: Sendable {
        var bytes: [UInt8]
        var durableOffset: UInt64
        var nextOffset: UInt64
        var nodeId: UInt64?
        var epoch: UInt64?
    }

    /// What a pull got.
    enum PullAnswer: Sendable {
        case batches(PulledBatches)
        /// 410: our cursor is below the peer's history start.
        case snapshotRequired
        /// 409: the peer does not hold the position we stated.
        case diverged
    }

    private func prefetch(from cursor: UInt64, epoch: UInt64?, wait: Duration) -> Task<
        PullAnswer, any Error
    > {
        Task { try await pull(from: cursor, epoch: epoch, wait: wait) }
    }

    /// `GET /log` from `cursor`, stating `epoch` (of the record before it) when known.
    private func pull(from cursor: UInt64, epoch: UInt64?, wait: Duration?) async throws
        -> PullAnswer
    {
        var url = "\(peer)/log?from=\(cursor)&max_bytes=\(bytesPerPull)"
        if let epoch, cursor > 0 { url += "&epoch=\(epoch)" }
        var timeout = transferTimeout
        if let wait {
            let milliseconds =
                wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            url += "&wait_ms=\(milliseconds)"
            timeout += wait
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await transfer(
            request, within: timeout, bodyBytesMax: bytesPerPull + (1 << 20))
        let body = response.body
        if response.status == .gone { return .snapshotRequired }
        if response.status == .conflict { return .diverged }
        guard response.status == .ok else {
            let reason = String(buffer: body)
            throw Failure(message: "\(peer): \(response.status.code) \(reason)")
        }
        func header(_ name: String) -> UInt64? {
            response.headers.first(name: name).flatMap(UInt64.init)
        }
        guard let durable = header(ShippingHeaders.durableOffset),
            let next = header(ShippingHeaders.nextOffset)
        else {
            throw Failure(message: "\(peer): the answer lacks the Logbook offset headers")
        }
        return .batches(
            PulledBatches(
                bytes: Array(body.readableBytesView), durableOffset: durable, nextOffset: next,
                nodeId: header(ShippingHeaders.nodeId), epoch: header(ShippingHeaders.epoch)))
    }

    /// Checks and merges `batches` (read from `cursor`), makes them durable, then moves the
    /// durable cursor past them; returns the new cursor.
    private func store(
        _ batches: PulledBatches, from cursor: UInt64, into report: inout Report
    ) async throws -> UInt64 {
        let (changes, end) = try ShippedBatchReader.changes(in: batches.bytes, from: cursor)
        guard end == batches.nextOffset else {
            throw Failure(
                message: "\(peer): batches end at \(end), the header says \(batches.nextOffset)")
        }
        let accepted = try await logbook.merge(changes)
        try logbook.sync()  // what we merged is durable before the cursor moves past it
        try ledger.setCursor(end, epoch: batches.epoch, for: peer, nodeId: batches.nodeId)
        report.pulls += 1
        report.bytes += batches.bytes.count
        report.received += changes.count
        report.accepted += accepted.count
        report.cursor = end
        return end
    }

    /// Merges the peer's `GET /snapshot` and moves the cursor to the offset it covers.
    private func restoreFromSnapshot(_ report: inout Report) async throws -> UInt64 {
        // Page by page: each page is merged and synced before the next is asked for, so
        // neither side holds the whole state. The cursor moves only after the last page, to
        // what the first page covered (the state only grows while it pages).
        var first: (covered: UInt64, epoch: UInt64?, nodeId: UInt64?)?
        var after: String?
        var lastRecordId: String?
        var pages = 0
        repeat {
            var url = "\(peer)/snapshot?page_changes=\(snapshotPageChanges)"
            if let after { url += "&after=\(after)" }
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await transfer(
                request, within: snapshotTimeout, bodyBytesMax: snapshotBytesMax)
            guard response.status == .ok,
                let covered = response.headers.first(name: ShippingHeaders.nextOffset).flatMap(
                    UInt64.init)
            else {
                throw Failure(message: "\(peer): snapshot refused with \(response.status.code)")
            }
            let changes: [Change<String, String, Value>]
            do {
                changes = try JSONDecoder().decode(
                    [Change<String, String, Value>].self,
                    from: Data(response.body.readableBytesView))
            } catch {
                throw Failure(message: "\(peer): the snapshot is not crdt-lite JSON: \(error)")
            }
            let accepted = try await logbook.merge(changes)
            try logbook.sync()
            report.received += changes.count
            report.accepted += accepted.count
            if first == nil {
                first = (
                    covered,
                    response.headers.first(name: ShippingHeaders.epoch).flatMap(UInt64.init),
                    response.headers.first(name: ShippingHeaders.nodeId).flatMap(UInt64.init)
                )
            }
            // Pages hold records in ascending id order; one that goes back would let a
            // hostile or broken peer page for ever.
            if let previous = lastRecordId, let firstId = changes.first?.recordId,
                firstId <= previous
            {
                throw Failure(message: "\(peer): a snapshot page went back to \(firstId)")
            }
            lastRecordId = changes.last?.recordId ?? lastRecordId
            after = response.headers.first(name: ShippingHeaders.snapshotAfter)
            pages += 1
            guard pages <= snapshotPagesMax else {
                throw Failure(message: "\(peer): the snapshot runs past \(snapshotPagesMax) pages")
            }
        } while after != nil
        guard let first else { return ledger.cursor(for: peer) }
        try ledger.setCursor(first.covered, epoch: first.epoch, for: peer, nodeId: first.nodeId)
        report.snapshots += 1
        try await acknowledge(first.covered)
        return first.covered
    }

    /// Acknowledges `offset` when `acknowledgementInterval` has passed since `last` (and then
    /// moves `last` to now).
    private func acknowledge(
        _ offset: UInt64, ifDueSince last: inout ContinuousClock.Instant
    ) async throws {
        guard ContinuousClock.now - last >= acknowledgementInterval else { return }
        try await acknowledge(offset)
        last = .now
    }

    /// Tells the peer we have merged its log below `offset`.
    private func acknowledge(_ offset: UInt64) async throws {
        var request = HTTPClientRequest(url: "\(peer)/ack")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        // Our log end and GC frontier go with it: the peer's tombstone GC needs both.
        let body =
            #"{"node": \#(logbook.nodeId), "offset": \#(offset), "#
            + #""log_end": \#(logbook.durableOffset), "collected_below": \#(logbook.collectedBelow)}"#
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await transfer(request, within: .seconds(10), bodyBytesMax: 1 << 16)
        let answer = response.body
        guard response.status == .noContent else {
            throw Failure(
                message: "\(peer): acknowledgement refused with \(response.status.code) "
                    + String(buffer: answer).prefix(300))
        }
    }
}
