import Foundation
import LogbookCRDT
import LogbookStorage

/// Tombstone GC through a hub: collects the tombstones the hub listed as collectable
/// (`CollectableTombstones`, decided by `StreamCollectionRule` over every node of the
/// stream) and fences the collected records until the hub says every node collected them.
/// The removal itself is the mesh GC's (`TombstoneCollector`): fence durably, pin the clock,
/// rewrite the sealed segments in ascending order, forget the tombstones.
///
/// A node collects through a hub only while it syncs through hubs alone: a registered mesh
/// peer, or a node that pulled from this one, could bring back what the hub's rule did not
/// account for, so either blocks it (and the hub's horizon waits for this node).
enum ListedTombstoneCollector {
    static func collect(
        _ logbook: Logbook, listed: CollectableTombstones, hub: String, peers: PeerLedger,
        options: TombstoneCollectionOptions
    ) throws(LogbookError) -> TombstoneCollectionReport {
        let started = ContinuousClock.now
        let now = options.now?.timeIntervalSince1970 ?? logbook.wallClock.secondsSince1970()
        var report = TombstoneCollectionReport(starting: logbook, peers: peers)
        var state = logbook.collectionState
        var progress = state.hubs?[hub] ?? .init()
        try check(listed, hub: hub)

        report.blockedBecause = blockedBecause(peers, node: logbook.nodeId)
        let tombstones = logbook.tombstoneSnapshot()
        report.tombstonesBefore = tombstones.count
        report.tombstonesAfter = tombstones.count
        if report.blockedBecause != nil { return finished(report, logbook, state, started) }

        var wanted: [String: TombstoneInfo] = [:]
        for entry in listed.entries where entry.version >= progress.listedCollectedBelow {
            if let tombstone = tombstones[entry.recordId] { wanted[entry.recordId] = tombstone }
        }
        let logged = try TombstoneCollector.recordsOfTombstoned(
            wanted, logbook, bytesPerSecondMax: options.bytesPerSecondMax)
        let dead = Set(logged.values.lazy.flatMap(\.offsets))
        let deletions = logged.values.compactMap(\.latestDeletion)
        report.collected = wanted.count
        report.recordsRemoved = dead.count
        report.acknowledgedBelow = listed.collectableBelow
        if options.dryRun {
            report.tombstonesAfter = tombstones.count - wanted.count
            return finished(report, logbook, state, started)
        }

        if !wanted.isEmpty {
            // Pulls from below the collected deletions would miss them; the push cursor is
            // past them already (the hub listed them only after this node pushed them).
            if let last = deletions.max() {
                state.historyStart = max(
                    state.historyStart, min(min(last, .max - 1) + 1, peers.pushCursor(for: hub)))
            }
            state.rounds.append(
                .init(
                    collectedBelow: state.collectedBelow, time: now, peerLogEnds: [:],
                    records: wanted.keys.sorted().compactMap { id in
                        wanted[id].map { .init(id: id, dbVersion: $0.dbVersion, nodeId: $0.nodeId) }
                    },
                    hub: hub, hubVersionsBelow: listed.listedBelow))
            try logbook.commitCollectionState(state)  // fenced before anything is removed
            try logbook.pinClock(sealing: deletions.contains { $0 >= logbook.sealedEnd })
            report.segmentsRewritten = try logbook.withSnapshotsSuspended {
                () throws(LogbookError) -> Int in
                let rewritten = try TombstoneCollector.removeRecords(
                    at: dead, logbook, bytesPerSecondMax: options.bytesPerSecondMax)
                logbook.forgetTombstones(wanted.keys)
                return rewritten
            }
        }

        progress.listedCollectedBelow = max(progress.listedCollectedBelow, listed.listedBelow)
        progress.streamCollectedBelow = max(progress.streamCollectedBelow, listed.collectedBelow)
        report.unfenced = liftFences(&state, hub: hub, below: progress.streamCollectedBelow)
        var hubs = state.hubs ?? [:]
        hubs[hub] = progress
        state.hubs = hubs
        try logbook.commitCollectionState(state)
        report.tombstonesAfter = logbook.tombstoneCount()
        return finished(report, logbook, state, started)
    }

    /// Why this node may not collect through a hub: it has mesh peers.
    private static func blockedBecause(_ peers: PeerLedger, node: UInt64) -> String? {
        if let peer = peers.registeredPeers.first {
            return "node \(peer) is a registered mesh peer: GC through a hub needs a node that "
                + "syncs only through hubs (remove it with `logbook peers DIR remove \(peer)`)"
        }
        if let unknown = peers.unknownPeers(excluding: node).first {
            return "node \(unknown) has pulled from this node: GC through a hub needs a node "
                + "that syncs only through hubs"
        }
        return nil
    }

    /// Drops `hub`'s rounds that every node has collected past; returns how many records
    /// were unfenced.
    private static func liftFences(
        _ state: inout TombstoneCollectionState, hub: String, below: UInt64
    ) -> Int {
        var unfenced = 0
        state.rounds.removeAll { round in
            guard round.hub == hub, let end = round.hubVersionsBelow, end <= below else {
                return false
            }
            unfenced += round.records.count
            return true
        }
        return unfenced
    }

    /// A list that breaks its own promises (entries outside the range it states, horizons
    /// out of order) is refused whole: a hostile or broken hub must not make a node drop
    /// tombstones it did not account for.
    private static func check(_ listed: CollectableTombstones, hub: String)
        throws(LogbookError)
    {
        let reason: String? =
            if listed.listedBelow > listed.collectableBelow {
                "it lists below \(listed.listedBelow), past its horizon \(listed.collectableBelow)"
            } else if listed.collectedBelow > listed.collectableBelow {
                "every node collected below \(listed.collectedBelow), past its horizon "
                    + "\(listed.collectableBelow)"
            } else if let stray = listed.entries.first(where: {
                $0.version >= listed.listedBelow
            }) {
                "it lists \(stray.recordId) at version \(stray.version), not below "
                    + "\(listed.listedBelow)"
            } else {
                nil
            }
        if let reason {
            throw LogbookError(
                .failed, "\(hub): list of collectable tombstones refused: \(reason)")
        }
    }

    private static func finished(
        _ report: TombstoneCollectionReport, _ logbook: Logbook,
        _ state: TombstoneCollectionState, _ started: ContinuousClock.Instant
    ) -> TombstoneCollectionReport {
        var report = report
        report.collectedBelow = state.collectedBelow
        report.historyStart = state.historyStart
        report.fenced = logbook.fencedRecordCount
        report.bytesAfter = logbook.sizeBytes
        report.seconds = seconds(since: started)
        return report
    }
}
