import Foundation
import LogbookCRDT
import LogbookStorage

/// How a tombstone GC runs.
public struct TombstoneCollectionOptions: Sendable {
    /// Compute and report, change nothing (not even the retention sightings).
    public var dryRun = false
    /// Collect only tombstones that have been in the log at least this long, in seconds.
    /// Default one day, as Kafka's `delete.retention.ms`. Measured from GC runs' sightings
    /// of the log end (`tombstone-gc.json`): the first run after a deletion starts its clock.
    public var retentionSeconds: Double = 86_400
    /// The time now; nil for the Logbook's `LogbookOptions.wallClock`.
    public var now: Date? = nil
    /// Cap the rewrite at this many bytes per second; nil for no cap.
    public var bytesPerSecondMax: Int64? = nil
    /// Told how far the log's reading and rewriting are (`logbook gc` draws it on a
    /// terminal); nil for none.
    public var progress: MaintenanceProgress? = nil

    /// The defaults.
    public init() {}
}

/// What a tombstone GC found and did. Encoded by its property names (`logbook gc --json`).
public struct TombstoneCollectionReport: Sendable, Equatable, Encodable {
    /// The peers that gate GC.
    public var registeredPeers: [UInt64] = []
    /// Why nothing new could be collected, when so.
    public var blockedBecause: String?
    /// Acknowledgements allow collecting tombstones logged below this offset.
    public var acknowledgedBelow: UInt64 = 0
    /// The retention time allows collecting tombstones logged below this offset.
    public var retainedBelow: UInt64 = 0
    /// After this run: every tombstone logged below this offset has been collected.
    public var collectedBelow: UInt64 = 0
    /// Pulls from below this offset get "snapshot required" (after this run).
    public var historyStart: UInt64 = 0
    /// Tombstones held before and after.
    public var tombstonesBefore = 0
    /// Tombstones held before and after.
    public var tombstonesAfter = 0
    /// Tombstones acknowledged by every peer but younger than the retention time.
    public var waitingForRetention = 0
    /// Records whose tombstones were (or would be) collected.
    public var collected = 0
    /// Log records removed (tombstones and whatever they shadowed).
    public var recordsRemoved = 0
    /// Segments rewritten.
    public var segmentsRewritten = 0
    /// Bytes of the whole log before and after.
    public var bytesBefore: Int64 = 0
    /// Bytes of the whole log before and after.
    public var bytesAfter: Int64 = 0
    /// Collected records whose fence (against local re-insert) was lifted this run.
    public var unfenced = 0
    /// Collected records still fenced after this run.
    public var fenced = 0
    /// Wall time.
    public var seconds = 0.0

    /// An empty report.
    public init() {}

    /// A run's report as it starts: the log's size and the registered peers.
    init(starting logbook: Logbook, peers: PeerLedger) {
        bytesBefore = logbook.sizeBytes
        registeredPeers = peers.registeredPeers
    }
}

/// Tombstone GC, a pass separate from compaction: removes a deletion and everything it
/// shadows, from the log and from memory, once that is safe. The rule (argued in
/// docs/maintenance.md, checked by `TombstoneGCSimulationTests`):
///
/// 1. *Every registered peer has the tombstone*: each has acknowledged our log past it.
/// 2. *Nothing older can still arrive*: we have pulled each peer's log past the end it
///    reported in that acknowledgement (all it logged before it had the tombstone).
/// 3. *The retention time has passed* since a GC run saw the tombstone in the log.
/// 4. *No unknown peer*: a node that synced with us but is not registered blocks GC.
///
/// A collected record is then *fenced*: local writes to it are refused until every
/// registered peer reports (in its acknowledgements) that its own GC has passed the point
/// where it held that tombstone. Without the fence, a re-insert here would reach a peer that
/// still holds the tombstone, be dropped there, and the two would differ for good.
enum TombstoneCollector {
    static func collect(
        _ logbook: Logbook, peers: PeerLedger, options: TombstoneCollectionOptions
    ) throws(LogbookError) -> TombstoneCollectionReport {
        let started = ContinuousClock.now
        let now = options.now?.timeIntervalSince1970 ?? logbook.wallClock.secondsSince1970()
        var report = TombstoneCollectionReport(starting: logbook, peers: peers)
        let unknownPeers = peers.unknownPeers(excluding: logbook.nodeId)
        var state = logbook.collectionState
        // Sightings, the frontier and the acknowledgement check name only durable offsets:
        // a sighting past what a power cut leaves would date records written later at those
        // offsets back to this run, and collect their tombstones before their retention time.
        if !options.dryRun { try logbook.sync() }
        let logEnd = logbook.durableOffset

        // Conditions 1, 2 and 4: how far acknowledgements allow.
        var acknowledgedBelow = logEnd
        var peerLogEnds: [String: UInt64] = [:]
        if let hub = peers.pushPeers.first {
            report.blockedBecause =
                "this node syncs through the hub \(hub): its tombstones are collected through "
                + "the hub (`logbook sync --gc`, `logbook serve --gc-every`), not by the mesh rule"
        } else if let unknown = unknownPeers.first {
            report.blockedBecause =
                "node \(unknown) has synced with this node but is not a registered peer "
                + "(register it with `logbook peers DIR add \(unknown)`, or remove it)"
        }
        for peer in report.registeredPeers where report.blockedBecause == nil {
            let entry = peers.acknowledgement(of: peer)
            if let entry, entry.acknowledges(past: logEnd) {
                report.blockedBecause =
                    "peer \(peer) acknowledged offset "
                    + "\(max(entry.acknowledged ?? 0, entry.settledAcknowledged ?? 0)), past this "
                    + "log's end \(logEnd): that came from another copy of this log (restored "
                    + "from an older one?); GC waits for the peer's next acknowledgement"
                break
            }
            guard let settled = entry?.settledAcknowledged, let end = entry?.settledPeerLogEnd
            else {
                report.blockedBecause =
                    entry?.acknowledged == nil
                    ? "peer \(peer) has not acknowledged anything yet"
                    : "this node has not pulled peer \(peer)'s log far enough yet "
                        + "(at \(peers.pullCursor(ofNode: peer) ?? 0); its acknowledgements "
                        + "need \(entry?.pending?.first?.last ?? 0))"
                break
            }
            acknowledgedBelow = min(acknowledgedBelow, settled)
            peerLogEnds[String(peer)] = end
        }
        if report.blockedBecause != nil { acknowledgedBelow = 0 }

        // Condition 3: how far the retention time allows.
        // (A dry run notes the sighting only in its own copy of the state.)
        state.noteSighting(.init(time: now, logEnd: logEnd), retention: options.retentionSeconds)
        report.acknowledgedBelow = acknowledgedBelow
        report.retainedBelow = state.retainedBelow(now: now, retention: options.retentionSeconds)
        let collectBelow = min(acknowledgedBelow, report.retainedBelow)

        // Which tombstoned records have their (latest) deletion logged below the frontier, and
        // where all their records are: one read of the log.
        let tombstones = logbook.tombstoneSnapshot()
        report.tombstonesBefore = tombstones.count
        let logged = try recordsOfTombstoned(
            tombstones, logbook, bytesPerSecondMax: options.bytesPerSecondMax,
            progress: options.progress)
        var collected: [String: UInt64] = [:]
        var dead: Set<UInt64> = []
        for (id, records) in logged {
            guard let deletion = records.latestDeletion else { continue }
            if deletion < collectBelow {
                collected[id] = deletion
                dead.formUnion(records.offsets)
            } else if deletion < acknowledgedBelow {
                report.waitingForRetention += 1
            }
        }
        report.collected = collected.count
        state.collectedBelow = max(state.collectedBelow, collectBelow)

        if options.dryRun {
            report.recordsRemoved = dead.count
            report.collectedBelow = state.collectedBelow
            report.historyStart = state.historyStart
            report.tombstonesAfter = tombstones.count - collected.count
            report.fenced = logbook.fencedRecordCount
            report.bytesAfter = report.bytesBefore
            report.seconds = seconds(since: started)
            return report
        }

        if !collected.isEmpty {
            // Fence first (durably), so a crash in the rewrite leaves the records fenced.
            state.historyStart = max(state.historyStart, collectBelow)
            state.rounds.append(
                .init(
                    collectedBelow: collectBelow, time: now, peerLogEnds: peerLogEnds,
                    records: collected.keys.sorted().compactMap { id in
                        tombstones[id].map {
                            .init(id: id, dbVersion: $0.dbVersion, nodeId: $0.nodeId)
                        }
                    }))
            try logbook.commitCollectionState(state)
            // Dropping records may drop the newest version logged: pin the clock first. And
            // seal the active segment when a collected tombstone is still in it.
            try logbook.pinClock(sealing: collected.values.contains { $0 >= logbook.sealedEnd })
            report.segmentsRewritten = try logbook.withSnapshotsSuspended {
                () throws(LogbookError) -> Int in
                let rewritten = try removeRecords(
                    at: dead, logbook, bytesPerSecondMax: options.bytesPerSecondMax,
                    progress: options.progress)
                logbook.forgetTombstones(collected.keys)
                return rewritten
            }
            report.recordsRemoved = dead.count
        }

        // Lift the fences every registered peer has collected past.
        if unknownPeers.isEmpty && peers.pushPeers.isEmpty {
            report.unfenced = liftFences(&state, peers: peers, registered: report.registeredPeers)
        }
        try logbook.commitCollectionState(state)
        report.collectedBelow = state.collectedBelow
        report.historyStart = state.historyStart
        report.tombstonesAfter = logbook.tombstoneCount()
        report.fenced = logbook.fencedRecordCount
        report.bytesAfter = logbook.sizeBytes
        report.seconds = seconds(since: started)
        return report
    }

    /// Drops the rounds whose records every registered peer has collected; returns how many
    /// records were unfenced.
    private static func liftFences(
        _ state: inout TombstoneCollectionState, peers: PeerLedger, registered: [UInt64]
    ) -> Int {
        var unfenced = 0
        var kept: [TombstoneCollectionState.FenceRound] = []
        for var round in state.rounds {
            guard round.hub == nil else {  // a hub's round lifts by the hub's word
                kept.append(round)
                continue
            }
            var everyPeerCollected = true
            for peer in registered {
                let entry = peers.acknowledgement(of: peer)
                if round.peerLogEnds[String(peer)] == nil,
                    let acknowledged = entry?.acknowledged, acknowledged >= round.collectedBelow,
                    let end = entry?.peerLogEnd
                {
                    // A peer registered after the round: any acknowledgement past the round's
                    // frontier means it held (or never had) these tombstones below its end.
                    round.peerLogEnds[String(peer)] = end
                }
                guard let end = round.peerLogEnds[String(peer)],
                    let collectedBelow = entry?.peerCollectedBelow, collectedBelow >= end
                else {
                    everyPeerCollected = false
                    continue
                }
            }
            if everyPeerCollected {
                unfenced += round.records.count
            } else {
                kept.append(round)
            }
        }
        state.rounds = kept
        return unfenced
    }

    /// Where a tombstoned record's records are in the log.
    struct LoggedRecords {
        var offsets: [UInt64] = []
        var latestDeletion: UInt64?
    }

    /// Reads the key of every record in the log once and gathers the records of the
    /// tombstoned ids. Record ids are matched by a hash of their bytes first, so a string is
    /// built only for records whose hash is a tombstoned id's.
    static func recordsOfTombstoned(
        _ tombstones: [String: TombstoneInfo], _ logbook: Logbook, bytesPerSecondMax: Int64?,
        progress: MaintenanceProgress? = nil
    ) throws(LogbookError) -> [String: LoggedRecords] {
        var logged: [String: LoggedRecords] = [:]
        guard !tombstones.isEmpty else { return logged }
        let keyHash = KeyHash()
        var candidates: Set<UInt64> = []
        for id in tombstones.keys { candidates.insert(keyHash.hash(id)) }
        let (cursor, _, _, _, _) = try logbook.snapshotForCompaction()
        try Compactor.forEachKey(
            cursor, bytesPerSecondMax: bytesPerSecondMax, progress: progress,
            span: cursor.startOffset..<max(cursor.startOffset, logbook.nextOffset)
        ) { offset, key in
            guard !key.isClock, !key.isSnapshotMark, candidates.contains(keyHash.hash(key.recordId))
            else { return }
            let id = String(decoding: key.recordId, as: UTF8.self)
            guard tombstones[id] != nil else { return }
            logged[id, default: LoggedRecords()].offsets.append(offset)
            if key.isRecordDeletion { logged[id, default: LoggedRecords()].latestDeletion = offset }
        }
        return logged
    }

    /// Rewrites, in ascending order, every sealed segment holding one of the `dead` records
    /// without them; returns how many it rewrote. Ascending matters: a record's changes come
    /// before its deletion, so a crash between two segments leaves either the deletion or
    /// nothing of the record.
    static func removeRecords(
        at dead: Set<UInt64>, _ logbook: Logbook, bytesPerSecondMax: Int64?,
        progress: MaintenanceProgress? = nil
    ) throws(LogbookError) -> Int {
        let (_, runs, directory, fileSystem, configuration) = try logbook.snapshotForCompaction()
        let sealedEnd = runs.last?.endOffset ?? 0
        if let unsealed = dead.first(where: { $0 >= sealedEnd }) {
            throw LogbookError(
                .failed, "record at offset \(unsealed) to collect is not in a sealed segment",
                path: directory, logOffset: unsealed)
        }
        let ascending = dead.sorted()
        var rewritten = 0
        // Every sealed run's bytes: the runs without a dead record are passed over quickly.
        let total = runs.reduce(Int64(0)) { $0 + $1.sizeBytes }
        var done: Int64 = 0
        for run in runs {
            defer { done += run.sizeBytes }
            guard let first = ascending.firstIndex(where: { $0 >= run.baseOffset }) else { break }
            guard ascending[first] < run.endOffset else { continue }
            progress?(.rewriting, done, total)
            let output = try Compactor.rewrite(
                run, directory: directory, fileSystem: fileSystem, configuration: configuration,
                bytesPerSecondMax: bytesPerSecondMax
            ) { !dead.contains($0) }
            try logbook.installCompacted(output)
            rewritten += 1
        }
        if rewritten > 0 { progress?(.rewriting, total, total) }
        return rewritten
    }
}
