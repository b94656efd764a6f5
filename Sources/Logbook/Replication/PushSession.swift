import LogbookCRDT

/// Pushes this node's log to a peer that takes pushes (a hub) over any `PushTransport`:
/// from the durable push cursor for that peer, only what is durable here, leaving out the
/// ranges of the log that were pulled from that same peer (`PeerLedger.echoes`), so the
/// peer never gets its own changes back. The cursor moves only after the peer answered that
/// it committed the push, so a crash or a lost answer loses nothing: the next push starts
/// from the last saved cursor, and the peer's merge rejects what it already holds.
///
/// When the log below the cursor is gone (compaction or tombstone GC moved the history
/// start past it), the node's state is pushed instead, page by page, and the cursor moves
/// to the offset the state covered. So it is when the cursor names a position this log does
/// not hold (past its durable end, or after a record another epoch wrote: a directory
/// restored from an older copy, a `peers.json` from elsewhere): pushing on from it would
/// skip the changes this log wrote at those offsets since, and the peer would never get
/// them. The cursor is then replaced, not only moved forward (`PeerLedger.restartPush`).
public struct PushSession: Sendable {
    /// How much one push carries.
    public struct Options: Sendable {
        /// Stored bytes read from the log for one push (at least one batch).
        public var bytesPerPush = 1 << 20
        /// The most changes one push carries; more are sent in several pushes. A hub
        /// refuses pushes over `HubStore.pushChangesMax` (50,000).
        public var changesPerPushMax = 50_000
        /// Changes per page when the state is pushed.
        public var statePageChanges = 10_000

        /// The defaults.
        public init() {}
    }

    let logbook: Logbook
    let ledger: PeerLedger
    let transport: any PushTransport
    let options: Options

    /// A session pushing `logbook` to the peer `transport` reaches, keeping its cursor in
    /// `ledger` under the transport's `peerName`.
    public init(
        logbook: Logbook, ledger: PeerLedger, transport: any PushTransport,
        options: Options = Options()
    ) {
        self.logbook = logbook
        self.ledger = ledger
        self.transport = transport
        self.options = options
    }

    var peer: String { transport.peerName }

    /// Pushes until the cursor reaches the durable end this log had when the call started.
    public func pushAll(onStep: (PushReport) -> Void = { _ in }) async throws -> PushReport {
        let target = logbook.durableOffset
        var total = PushReport()
        repeat {
            let before = ledger.pushCursor(for: peer)
            let step = try await self.step()
            total.add(step)
            onStep(step)
            if step.cursor >= step.durableOffset { break }
            // Held by a pulled merge in flight (`PeerLedger.pushExclusions`): it ends soon.
            if step.cursor <= before { try await Task.sleep(for: .milliseconds(1)) }
        } while total.cursor < target
        return total
    }

    /// One push from the durable cursor (or nothing, when the cursor is at the durable end).
    public func step() async throws -> PushReport {
        var report = PushReport()
        let cursor = ledger.pushCursor(for: peer)
        report.cursor = cursor
        if let reason = positionNotHeld(cursor) {
            report.restarts += 1
            report.restartReason = reason
            try await pushState(into: &report, restarting: true)
            return report
        }
        guard let shipped = try storedBatches(from: cursor) else {
            try await pushState(into: &report, restarting: false)
            return report
        }
        report.durableOffset = shipped.durableOffset
        guard shipped.batchCount > 0 else { return report }
        var (records, end) = try ShippedBatchReader.changesWithOffsets(
            in: shipped.bytes, from: cursor)
        let readCount = records.count
        // After the log is read: a pulled merge it holds is then held back or known.
        let (heldFrom, echoes) = ledger.pushExclusions(for: peer)
        if let heldFrom, heldFrom < end {
            guard heldFrom > cursor else { return report }  // the next step takes it
            records.removeAll { $0.0 >= heldFrom }
            end = heldFrom
        }
        var kept: [(UInt64, Change<String, String, Value>)] = []
        kept.reserveCapacity(records.count)
        var echo = echoes.startIndex
        for (offset, change) in records {
            while echo < echoes.endIndex, echoes[echo].upperBound <= offset { echo += 1 }
            if echo < echoes.endIndex, echoes[echo].contains(offset) {
                report.echoesSkipped += 1
            } else {
                kept.append((offset, change))
            }
        }
        // Stored bytes go as they are when they hold exactly what must be sent; otherwise
        // what is kept is framed anew.
        if !kept.isEmpty {
            if kept.count == readCount, kept.count <= options.changesPerPushMax,
                Self.firstBatchStarts(in: shipped.bytes, atOrAfter: cursor)
            {
                try await send(shipped.bytes, changeCount: kept.count, into: &report)
            } else {
                try await send(kept, into: &report)
            }
        }
        try ledger.setPushCursor(end, epoch: logbook.epochId(before: end), for: peer)
        report.cursor = end
        return report
    }

    /// Why this log does not hold the push cursor's position, or nil when it does
    /// (`Logbook.checkPosition`, with the epoch noted when the cursor was set, when known).
    public func positionNotHeld(_ cursor: UInt64) -> String? {
        logbook.reasonNotHeld(cursor, epochId: ledger.pushEpoch(for: peer))
    }

    /// The stored batches from `cursor`; nil when the log below it is gone.
    private func storedBatches(from cursor: UInt64) throws(LogbookError) -> ShippedBatches? {
        do {
            return try logbook.storedBatches(from: cursor, maxBytes: options.bytesPerPush)
        } catch  where error.code == .snapshotRequired {
            return nil
        }
    }

    /// Pushes whenever this log's durable end passes the cursor, until the task is
    /// cancelled or a push fails (which throws). Checks the durable end every `poll`.
    public func follow(
        poll: Duration = .milliseconds(5), onStep: (PushReport) -> Void = { _ in }
    ) async throws {
        while !Task.isCancelled {
            let cursor = ledger.pushCursor(for: peer)
            if logbook.durableOffset > cursor || positionNotHeld(cursor) != nil {
                let report = try await step()
                onStep(report)
                // A step that could not move (a pulled merge holds the rest) waits a poll.
                if report.cursor > cursor { continue }
            }
            try await Task.sleep(for: poll)
        }
    }

    /// Follows until the task is cancelled; after a failure waits twice as long as after
    /// the previous one (from 100 ms up to 5 s) and resumes from the durable cursor.
    public func run(
        poll: Duration = .milliseconds(5),
        onReport: @Sendable (Result<PushReport, any Error>) -> Void = { _ in }
    ) async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await follow(poll: poll) { report in
                    onReport(.success(report))
                    backoff = .milliseconds(100)
                }
            } catch {
                if Task.isCancelled { return }
                onReport(.failure(error))
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Sends `changes` in pushes of at most `changesPerPushMax`, framed anew.
    private func send(
        _ changes: [(UInt64, Change<String, String, Value>)], into report: inout PushReport
    ) async throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let end = min(start + options.changesPerPushMax, changes.endIndex)
            var writer = ShippedBatchWriter()
            for (offset, change) in changes[start..<end] { writer.add(change, at: offset) }
            try await send(writer.finish(), changeCount: end - start, into: &report)
            start = end
        }
    }

    private func send(_ bytes: [UInt8], changeCount: Int, into report: inout PushReport)
        async throws
    {
        let receipt = try await transport.push(bytes, changeCount: changeCount)
        report.pushes += 1
        report.sent += changeCount
        report.accepted += receipt.accepted
    }

    /// Pushes the state page by page, then moves the cursor to what the first page covered
    /// (the state only grows while it pages); `restarting` replaces the cursor instead.
    private func pushState(into report: inout PushReport, restarting: Bool) async throws {
        let source = ReplicationSource(logbook: logbook, ledger: ledger)
        var after: String?
        var covered: UInt64?
        repeat {
            let page = source.statePage(after: after, changesMax: options.statePageChanges)
            if covered == nil { covered = page.covered }
            let numbered = page.changes.enumerated().map { (UInt64($0.offset), $0.element) }
            if !numbered.isEmpty { try await send(numbered, into: &report) }
            after = page.nextAfter
        } while after != nil
        let cursor = covered ?? 0
        if restarting {
            try ledger.restartPush(at: cursor, epoch: logbook.epochId(before: cursor), for: peer)
        } else {
            try ledger.setPushCursor(cursor, epoch: logbook.epochId(before: cursor), for: peer)
        }
        report.statePushes += 1
        report.cursor = cursor
        report.durableOffset = logbook.durableOffset
    }

    /// Whether the first batch in `bytes` starts at or after `offset`: a body read from
    /// inside a batch holds records the peer already has.
    static func firstBatchStarts(in bytes: [UInt8], atOrAfter offset: UInt64) -> Bool {
        ShippedBatchReader.firstBaseOffset(in: bytes).map { $0 >= offset } ?? false
    }
}

extension PushReport {
    /// Adds a later step's figures; the cursor and durable end become the step's.
    public mutating func add(_ step: PushReport) {
        pushes += step.pushes
        sent += step.sent
        accepted += step.accepted
        echoesSkipped += step.echoesSkipped
        statePushes += step.statePushes
        restarts += step.restarts
        restartReason = step.restartReason ?? restartReason
        cursor = step.cursor
        durableOffset = step.durableOffset
    }
}
