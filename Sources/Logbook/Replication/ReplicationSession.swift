import LogbookCRDT

/// Replicates one peer's log into a Logbook over any `ReplicationTransport`: from the durable
/// cursor for that peer, stating the position it holds; each body checked whole before its
/// changes are merged; the merge made durable before the cursor moves; an acknowledgement
/// sent back; the peer's state taken page by page when its history no longer holds the
/// cursor or it does not hold our position. A crash or a failed transfer at any point loses
/// nothing: the next step starts from the last saved cursor, and merging the same changes
/// again changes nothing.
public struct ReplicationSession: Sendable {
    /// How much a session asks for at once, and how often it acknowledges.
    public struct Options: Sendable {
        /// The largest body asked for in one fetch of batches.
        public var bytesPerFetch = 4 << 20
        /// The most records one fetched answer may decode to: 2^20 (about 100 MB of changes
        /// at most), a few times what 4 MiB of ordinary batches hold. An answer announcing
        /// more is asked for again with a smaller body (`FetchSizing`).
        public var recordsPerFetchMax = 1 << 20
        /// The most bytes one fetched answer may decompress to: 64 MiB.
        public var rawBytesPerFetchMax = 64 << 20
        /// Changes asked for per state page (whole records, so a page may hold more). The
        /// peer walks its whole state once per page, so pages are large: 100,000 changes are
        /// a few MB on the wire.
        public var statePageChanges = 100_000
        /// Start from the peer's state, not its history: a session whose cursor for the
        /// peer is still 0 takes the state page by page and then pulls from the offset it
        /// covers, instead of merging every change the peer ever logged. The state never
        /// holds more changes than the history (one per live column and per tombstone, each
        /// a change the history holds too), and a long-lived log holds many times more. A
        /// hub's changes from version 0 are its state already, so `HubLink` turns this off.
        public var bootstrapsFromState = true
        /// The most pages one snapshot may take: a peer that never ends it fails the step.
        public var statePagesMax = 1 << 20
        /// While fetches keep finding new batches, acknowledge at most this often (each
        /// acknowledgement costs the peer a durable ledger write); a catch-up that reaches
        /// the peer's high watermark always acknowledges before it returns.
        public var acknowledgementInterval = Duration.milliseconds(250)
        /// Remember where in this log the peer's changes went (`PeerLedger.echoes`), for a
        /// peer this node also pushes to (a hub): the push then skips them.
        public var remembersEchoes = false

        /// The defaults.
        public init() {}
    }

    let logbook: Logbook
    let ledger: PeerLedger
    let transport: any ReplicationTransport
    let options: Options
    let metrics: ReplicationMetrics
    let sizing: FetchSizing

    /// A session replicating the peer `transport` reaches into `logbook`, keeping its cursor
    /// in `ledger` under the transport's `peerName`.
    public init(
        logbook: Logbook, ledger: PeerLedger, transport: any ReplicationTransport,
        options: Options = Options()
    ) {
        self.logbook = logbook
        self.ledger = ledger
        self.transport = transport
        self.options = options
        metrics = ReplicationMetrics(peer: transport.peerName)
        sizing = FetchSizing(bytesMax: options.bytesPerFetch)
    }

    var peer: String { transport.peerName }

    /// Fetches until the cursor reaches the peer's durable high watermark. `onStep` sees the
    /// report after every fetch whose changes are merged, durable and behind the durable
    /// cursor (progress before the catch-up ends).
    public func catchUp(onStep: (ReplicationReport) -> Void = { _ in }) async throws
        -> ReplicationReport
    {
        var report = ReplicationReport()
        try restartPullIfNotHeld(&report)
        var acknowledged = ContinuousClock.now
        while true {
            switch try await advance(from: ledger.cursor(for: peer), into: &report) {
            case .restored: continue
            case .nothingNew:
                // Our log end and GC frontier may have moved: the peer's fences wait for
                // them, so acknowledge anyway.
                try await acknowledge(report.cursor)
                return report
            case .stored:
                metrics.noteLag(report)
                onStep(report)
                if report.cursor >= report.peerDurableOffset {
                    try await acknowledge(report.cursor)
                    return report
                }
                try await acknowledge(report.cursor, ifDueSince: &acknowledged)
            }
        }
    }

    /// One fetch from the durable cursor: its batches checked, merged, durable and the
    /// cursor moved past them, or the peer's state taken; then an acknowledgement. The
    /// report's `cursor` below its `peerDurableOffset` means the peer has more. What
    /// simulations interleave with writes, GC and faults.
    public func step() async throws -> ReplicationReport {
        var report = ReplicationReport()
        try restartPullIfNotHeld(&report)
        // A state restore acknowledges itself.
        if try await advance(from: ledger.cursor(for: peer), into: &report) != .restored {
            try await acknowledge(report.cursor)
        }
        metrics.noteLag(report)
        return report
    }

    /// What one fetch did.
    enum Advance { case stored, nothingNew, restored }

    /// Fetches from `cursor` and stores what arrived (or takes the peer's state); leaves the
    /// new cursor in `report.cursor`. Acknowledges nothing but a state restore.
    private func advance(from cursor: UInt64, into report: inout ReplicationReport) async throws
        -> Advance
    {
        if let covered = try await bootstrap(from: cursor, &report) {
            report.cursor = covered
            return .restored
        }
        let answer = try await fetch(from: cursor, epoch: ledger.epoch(for: peer), wait: nil)
        guard case .batches(let batches) = answer else {
            report.cursor = try await restoreFromState(after: answer, &report)
            return .restored
        }
        report.peerDurableOffset = batches.durableOffset
        guard !batches.bytes.isEmpty else {
            report.cursor = cursor
            return .nothingNew
        }
        _ = try await store(batches, from: cursor, into: &report)
        return .stored
    }

    /// Follows the peer until the task is cancelled (or a step fails, which throws): each
    /// fetch is a long poll (`wait`) that the peer answers as soon as it has something
    /// durable past our cursor, and the next fetch is sent as soon as an answer arrives,
    /// so the peer prepares it while this node merges and syncs the last one. `onStep` sees
    /// the report of each fetch (or snapshot) that moved the cursor, once it is durable, and
    /// a report with `pulls` 0 for each poll that waited in vain.
    public func follow(
        wait: Duration = .milliseconds(500), onStep: (ReplicationReport) -> Void = { _ in }
    ) async throws {
        var started = ReplicationReport()
        try restartPullIfNotHeld(&started)
        var cursor = ledger.cursor(for: peer)
        if let covered = try await bootstrap(from: cursor, &started) {
            cursor = covered
            started.cursor = covered
            onStep(started)
        } else if started.restarts > 0 {
            onStep(started)
        }
        var acknowledged = ContinuousClock.now
        // A peer that answers "nothing new" at once instead of holding the poll (not a
        // Logbook node, or a hostile one) would be asked thousands of times a second: such
        // answers are paced, from 20 ms doubling up to `wait`, until one waits or brings data.
        var quickEmpties = RetryDelay(min: .milliseconds(20), max: max(wait, .milliseconds(20)))
        var fetchStarted = ContinuousClock.now
        var inFlight = prefetch(from: cursor, epoch: ledger.epoch(for: peer), wait: wait)
        defer { inFlight.cancel() }
        // The next fetch, timed from now (what the pacing of quick empty answers measures).
        func fetchNext(from offset: UInt64, epoch: UInt64?) {
            fetchStarted = .now
            inFlight = prefetch(from: offset, epoch: epoch, wait: wait)
        }
        while !Task.isCancelled {
            // The fetch runs in its own task (so it is in flight while we merge): cancelling
            // this one must reach it, or a stop would wait out a whole long poll.
            let fetching = inFlight
            let answer = try await withTaskCancellationHandler {
                try await fetching.value
            } onCancel: {
                fetching.cancel()
            }
            var report = ReplicationReport()
            guard case .batches(let batches) = answer else {
                cursor = try await restoreFromState(after: answer, &report)
                report.cursor = cursor
                onStep(report)
                fetchNext(from: cursor, epoch: ledger.epoch(for: peer))
                continue
            }
            report.peerDurableOffset = batches.durableOffset
            guard !batches.bytes.isEmpty else {
                if ContinuousClock.now - fetchStarted < wait / 2 {
                    try await Task.sleep(for: quickEmpties.next())
                } else {
                    quickEmpties.reset()
                }
                fetchNext(from: cursor, epoch: ledger.epoch(for: peer))
                report.cursor = cursor
                onStep(report)  // pulls 0: the peer had nothing new for a whole wait
                try await acknowledge(cursor, ifDueSince: &acknowledged)
                continue
            }
            quickEmpties.reset()
            fetchNext(from: batches.nextOffset, epoch: batches.epoch)
            cursor = try await store(batches, from: cursor, into: &report)
            metrics.noteLag(report)
            onStep(report)
            try await acknowledge(cursor, ifDueSince: &acknowledged)
        }
    }

    /// Follows the peer until the task is cancelled; after a failure waits about twice as
    /// long as after the previous one (`RetryDelay`, from 100 ms up to 5 s, with jitter) and
    /// resumes from the durable cursor. `onReport` sees every step and every failure.
    public func run(
        wait: Duration = .milliseconds(500),
        onReport: @Sendable (Result<ReplicationReport, any Error>) -> Void = { _ in }
    ) async {
        var backoff = RetryDelay(min: .milliseconds(100), max: .seconds(5))
        while !Task.isCancelled {
            do {
                try await follow(wait: wait) { report in
                    onReport(.success(report))
                    backoff.reset()
                }
            } catch {
                if Task.isCancelled { return }
                metrics.errors.increment()
                onReport(.failure(error))
                try? await Task.sleep(for: backoff.next())
            }
        }
    }

    /// Fetches batches from `cursor`, asking again with a smaller body while the answer
    /// would decode past `recordsPerFetchMax` or `rawBytesPerFetchMax` (`FetchSizing`).
    private func fetch(from cursor: UInt64, epoch: UInt64?, wait: Duration?) async throws
        -> BatchAnswer
    {
        var asked = sizing.current
        while true {
            // The first position has no record before it, so nothing to state.
            let answer = try await transport.fetchBatches(
                from: cursor, epoch: cursor > 0 ? epoch : nil, maxBytes: asked, wait: wait)
            guard case .batches(let batches) = answer, !batches.bytes.isEmpty,
                let announced = try? ShippedBatchReader.announced(in: batches.bytes)
            else {
                return answer  // a malformed body is refused, with its reason, by `store`
            }
            guard
                let smaller = sizing.resize(
                    asked: asked, bodyBytes: batches.bytes.count, records: announced.records,
                    rawBytes: announced.rawBytes, batches: announced.batches,
                    recordsMax: options.recordsPerFetchMax,
                    rawBytesMax: options.rawBytesPerFetchMax)
            else {
                return answer
            }
            metrics.resizedFetches.increment()
            asked = smaller
        }
    }

    private func prefetch(from cursor: UInt64, epoch: UInt64?, wait: Duration) -> Task<
        BatchAnswer, any Error
    > {
        Task { try await fetch(from: cursor, epoch: epoch, wait: wait) }
    }

    /// Checks and merges `batches` (fetched from `cursor`), makes them durable, then moves
    /// the durable cursor past them; returns the new cursor.
    private func store(
        _ batches: FetchedBatches, from cursor: UInt64, into report: inout ReplicationReport
    ) async throws -> UInt64 {
        let (changes, end) = try ShippedBatchReader.changes(in: batches.bytes, from: cursor)
        guard end == batches.nextOffset else {
            throw ReplicationError(
                message: "\(peer): batches end at \(end), the peer says \(batches.nextOffset)")
        }
        let merged = try await mergeDurably(changes) { merged in
            let echoes = options.remembersEchoes ? merged.offsets : nil
            try ledger.setCursor(
                end, epoch: batches.epoch, for: peer, nodeId: batches.nodeId, echoes: echoes,
                echoesEpoch: echoes.map { logbook.epochId(before: $0.upperBound) },
                logEnd: options.remembersEchoes ? logbook.durableOffset : nil,
                mergedInto: logbook.durablePosition)
        }
        metrics.received.increment(by: Int64(changes.count))
        report.pulls += 1
        report.bytes += batches.bytes.count
        report.received += changes.count
        report.accepted += merged.acceptedCount
        report.cursor = end
        return end
    }

    /// Merges `changes`, makes them durable (before any cursor moves past them), then runs
    /// `record`. For a peer this node pushes to, pushes wait meanwhile (`holdingPushes`), so
    /// none reads the merged changes before `record` notes them as echoes.
    func mergeDurably(
        _ changes: [Change<String, String, Value>],
        record: (MergedChanges) throws -> Void
    ) async throws -> MergedChanges {
        func mergeSyncRecord() async throws -> MergedChanges {
            let merged = try await logbook.mergeLocated(changes, from: .peer)
            try logbook.sync()
            try record(merged)
            return merged
        }
        guard options.remembersEchoes else { return try await mergeSyncRecord() }
        return try await ledger.holdingPushes(
            to: peer, from: logbook.nextOffset, mergeSyncRecord)
    }

    /// Acknowledges `offset` when `acknowledgementInterval` has passed since `last` (and then
    /// moves `last` to now).
    private func acknowledge(
        _ offset: UInt64, ifDueSince last: inout ContinuousClock.Instant
    ) async throws {
        guard ContinuousClock.now - last >= options.acknowledgementInterval else { return }
        try await acknowledge(offset)
        last = .now
    }

    /// Tells the peer we have merged its log below `offset`; a hub also hears how far our
    /// pulls are settled and how far we collected what it listed (its GC needs both).
    func acknowledge(_ offset: UInt64) async throws {
        // The peer's GC relies on what this says: no cursor may lag behind it after a power
        // cut (`PeerLedger.Persistence.progress`).
        try ledger.makeDurable()
        // The position as the peer named it, so the peer can tell a stale acknowledgement.
        let epoch = offset > 0 && offset == ledger.cursor(for: peer) ? ledger.epoch(for: peer) : nil
        try await transport.acknowledge(
            ReplicationAcknowledgement(
                node: logbook.nodeId, offset: offset, epoch: epoch, logEnd: logbook.durableOffset,
                collectedBelow: logbook.collectedBelow,
                // A pull settles only what it merged: never past the offset acknowledged
                // (a `peers.json` from elsewhere may say more), which the hub's GC relies on.
                settled: options.remembersEchoes
                    ? min(ledger.pullSettled(for: peer) ?? 0, offset) : nil,
                listedCollectedBelow: options.remembersEchoes
                    ? logbook.listedCollectedBelow(peer: peer) : nil))
    }

    /// Acknowledges the cursor now (a hub link does after a push settled its pulls, and
    /// after a GC run, so the hub's GC sees both without waiting for the next pull). A
    /// cursor whose merges this log lost is restarted first; the report says so.
    @discardableResult
    public func acknowledgeCursor() async throws -> ReplicationReport {
        var report = ReplicationReport()
        try restartPullIfNotHeld(&report)
        report.cursor = ledger.cursor(for: peer)
        try await acknowledge(report.cursor)
        return report
    }

    /// Restarts the pull from 0 when this log no longer holds what the cursor's merges
    /// wrote (`PeerLedger+PullPositions`), noting it in `report`: the next fetch then
    /// takes the peer's state, or its history from the start.
    private func restartPullIfNotHeld(_ report: inout ReplicationReport) throws {
        guard let reason = try ledger.restartPullIfNotHeld(peer, by: logbook) else { return }
        report.restarts += 1
        report.restartReason = reason
    }
}
