import LogbookCRDT

// How a session takes a peer's state instead of its batches: on its first pull (a
// bootstrap), and when the peer answers that the position is gone (below its history
// start) or not held (diverged).
extension ReplicationSession {
    /// Takes the peer's state when this node has never pulled from it (`cursor` 0) and
    /// `bootstrapsFromState`; returns the cursor it moved to, or nil when there was nothing
    /// to take (the peer's state covers no offset yet: fetch batches from 0 as usual).
    func bootstrap(from cursor: UInt64, _ report: inout ReplicationReport) async throws
        -> UInt64?
    {
        guard cursor == 0, options.bootstrapsFromState else { return nil }
        let covered = try await restoreFromState(&report)
        guard covered > 0 else { return nil }
        report.bootstraps += 1
        return covered
    }

    /// Takes the peer's state after an answer that was not batches; returns the new cursor.
    /// A peer that no longer holds what was pulled from it (a hub restored from an older
    /// copy) may have lost what this node pushed to it too: the next push pushes the whole
    /// state (`PeerLedger.requirePushRestart`; nothing for a peer never pushed to).
    func restoreFromState(after answer: BatchAnswer, _ report: inout ReplicationReport)
        async throws -> UInt64
    {
        if case .diverged(let reason) = answer {
            report.divergences += 1
            try ledger.requirePushRestart(
                for: peer,
                reason: "the peer no longer holds what this node pulled from it: "
                    + reason.prefix(300))
        }
        let covered = try await restoreFromState(&report)
        report.snapshots += 1
        return covered
    }

    /// Merges the peer's state page by page, moves the cursor to the offset it covers and
    /// acknowledges it; returns that offset.
    func restoreFromState(_ report: inout ReplicationReport) async throws -> UInt64 {
        // The next page is asked for as soon as a page arrives, so the peer builds it while
        // this node merges and syncs the last one; neither side holds more than two pages.
        // The cursor moves only after the last page, to what the first page covered (the
        // state only grows while it pages).
        let (transport, changesMax) = (transport, options.statePageChanges)
        func fetch(after: String?) -> Task<StatePage, any Error> {
            Task { try await transport.fetchStatePage(after: after, changesMax: changesMax) }
        }
        var fetching: Task<StatePage, any Error>? = fetch(after: nil)
        defer { fetching?.cancel() }
        var first: StatePage?
        var lastRecordId: String?
        var pages = 0
        while let inFlight = fetching {
            let page = try await withTaskCancellationHandler {
                try await inFlight.value
            } onCancel: {
                inFlight.cancel()
            }
            pages += 1
            if page.nextAfter != nil && pages >= options.statePagesMax {
                throw ReplicationError(
                    message: "\(peer): the state runs past \(options.statePagesMax) pages")
            }
            fetching = page.nextAfter.map(fetch)
            let merged = try await mergeDurably(page.changes) { merged in
                if options.remembersEchoes { try ledger.addEchoes(merged.offsets, for: peer) }
            }
            metrics.received.increment(by: Int64(page.changes.count))
            report.received += page.changes.count
            report.accepted += merged.acceptedCount
            if first == nil { first = page }
            // Pages hold records in ascending id order; one that goes back would let a
            // hostile or broken peer page for ever.
            if let previous = lastRecordId,
                let lowest = page.changes.lazy.map(\.recordId).min(), lowest <= previous
            {
                throw ReplicationError(message: "\(peer): a state page went back to \(lowest)")
            }
            lastRecordId = page.changes.lazy.map(\.recordId).max() ?? lastRecordId
        }
        guard let first else { return ledger.cursor(for: peer) }
        try ledger.setCursor(
            first.covered, epoch: first.epoch, for: peer, nodeId: first.nodeId,
            logEnd: options.remembersEchoes ? logbook.durableOffset : nil,
            mergedInto: logbook.durablePosition)
        try await acknowledge(first.covered)
        return first.covered
    }
}
