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
///
/// Each push states where the peer merged the last one (`PeerPosition`, from its receipt).
/// A peer that no longer holds that position — a hub whose database was restored from an
/// older copy, which lost those pushes — says so after merging (`PeerLostPushes`), and the
/// state is pushed the same way; so it is after a pull found the peer's history diverged
/// (`PeerLedger.requirePushRestart`).
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
    /// The whole state instead when the cursor names a position this log does not hold, a
    /// pull asked for it (`PeerLedger.requirePushRestart`), or the peer answers that it no
    /// longer holds where it merged our earlier pushes (`PeerLostPushes`).
    public func step() async throws -> PushReport {
        var report = PushReport()
        do {
            try await step(into: &report)
        } catch let lost as PeerLostPushes {
            try ledger.requirePushRestart(for: peer, reason: lost.reason)
            try await restart(because: lost.reason, into: &report)
        }
        return report
    }

    private func step(into report: inout PushReport) async throws {
        let cursor = ledger.pushCursor(for: peer)
        report.cursor = cursor
        if let reason = reasonToRestart(at: cursor) {
            try await restart(because: reason, into: &report)
            return
        }
        guard let shipped = try storedBatches(from: cursor) else {
            try await pushState(into: &report, restarting: false)
            return
        }
        report.durableOffset = shipped.durableOffset
        guard shipped.batchCount > 0 else { return }
        var (records, end) = try ShippedBatchReader.changesWithOffsets(
            in: shipped.bytes, from: cursor)
        let readCount = records.count
        // After the log is read: a pulled merge it holds is then held back or known.
        let (heldFrom, echoes) = ledger.pushExclusions(for: peer)
        if let heldFrom, heldFrom < end {
            guard heldFrom > cursor else { return }  // the next step takes it
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
        var mergedAt = ledger.pushMergedAt(for: peer)
        if !kept.isEmpty {
            if kept.count == readCount, kept.count <= options.changesPerPushMax,
                Self.firstBatchStarts(in: shipped.bytes, atOrAfter: cursor)
            {
                try await send(
                    shipped.bytes, changeCount: kept.count, mergedAt: &mergedAt, into: &report)
            } else {
                try await send(kept, mergedAt: &mergedAt, into: &report)
            }
        }
        try ledger.setPushCursor(
            end, epoch: logbook.epochId(before: end), mergedAt: mergedAt, for: peer)
        report.cursor = end
    }

    /// Why the push from `cursor` must send the whole state instead, or nil: this log does
    /// not hold the cursor's position, or a restart was asked for and is not done yet.
    func reasonToRestart(at cursor: UInt64) -> String? {
        positionNotHeld(cursor).map { "this log does not hold the push cursor: " + $0 }
            ?? ledger.pushRestartReason(for: peer)
    }

    /// Pushes the whole state and replaces the cursor, counting the restart and its reason.
    private func restart(because reason: String, into report: inout PushReport) async throws {
        report.restarts += 1
        report.restartReason = reason
        try await pushState(into: &report, restarting: true)
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
            if logbook.durableOffset > cursor || reasonToRestart(at: cursor) != nil {
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
        _ changes: [(UInt64, Change<String, String, Value>)], mergedAt: inout PeerPosition?,
        into report: inout PushReport
    ) async throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let end = min(start + options.changesPerPushMax, changes.endIndex)
            var writer = ShippedBatchWriter()
            for (offset, change) in changes[start..<end] { writer.add(change, at: offset) }
            try await send(
                writer.finish(), changeCount: end - start, mergedAt: &mergedAt, into: &report)
            start = end
        }
    }

    /// One push, stating where the peer merged the last one (`mergedAt`), which becomes
    /// where it merged this one when its receipt says.
    private func send(
        _ bytes: [UInt8], changeCount: Int, mergedAt: inout PeerPosition?,
        into report: inout PushReport
    ) async throws {
        let receipt = try await transport.push(bytes, changeCount: changeCount, after: mergedAt)
        mergedAt = receipt.position ?? mergedAt
        report.pushes += 1
        report.sent += changeCount
        report.accepted += receipt.accepted
    }

    /// Pushes the state page by page, then moves the cursor to what the first page covered
    /// (the state only grows while it pages); `restarting` replaces the cursor instead, and
    /// states no earlier push: the peer's word on those is what the restart sets aside.
    private func pushState(into report: inout PushReport, restarting: Bool) async throws {
        let source = ReplicationSource(logbook: logbook, ledger: ledger)
        var after: String?
        var covered: UInt64?
        var mergedAt = restarting ? nil : ledger.pushMergedAt(for: peer)
        repeat {
            let page = source.statePage(after: after, changesMax: options.statePageChanges)
            if covered == nil { covered = page.covered }
            let numbered = page.changes.enumerated().map { (UInt64($0.offset), $0.element) }
            if !numbered.isEmpty { try await send(numbered, mergedAt: &mergedAt, into: &report) }
            after = page.nextAfter
        } while after != nil
        let cursor = covered ?? 0
        let epoch = logbook.epochId(before: cursor)
        if restarting {
            try ledger.restartPush(at: cursor, epoch: epoch, mergedAt: mergedAt, for: peer)
        } else {
            try ledger.setPushCursor(cursor, epoch: epoch, mergedAt: mergedAt, for: peer)
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
