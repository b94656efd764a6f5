import Logbook
import LogbookShipping
import Logging
import ServiceLifecycle

/// How often a serving node runs its maintenance passes.
public struct MaintenanceSchedule: Sendable {
    /// Tombstone GC every this often (nil: never).
    public var gcEvery: Duration?
    /// A compaction check every this often (nil: never); compacts at the default dirty
    /// ratio, 0.5.
    public var compactEvery: Duration?
    /// What each GC run is given (retention time).
    public var gcOptions = TombstoneCollectionOptions()

    /// No maintenance.
    public init() {}

    /// Whether any pass is scheduled.
    public var isScheduled: Bool { gcEvery != nil || compactEvery != nil }
}

/// A serving node's maintenance as a service: tombstone GC and compaction checks, one after
/// the other in one task (a Logbook runs one maintenance pass at a time), until graceful
/// shutdown. Logs what each pass removed, and once each new reason GC is blocked.
struct MaintenanceService: Service {
    let logbook: Logbook
    let ledger: PeerLedger
    let schedule: MaintenanceSchedule
    /// The hub streams this node syncs with: GC then runs through them (`HubLink.collect`),
    /// not by the mesh rule.
    var hubLinks: [HubLink] = []
    let logger: Logger

    func run() async throws {
        let start = ContinuousClock.now
        var nextGC = schedule.gcEvery.map { start + $0 }
        var nextCompaction = schedule.compactEvery.map { start + $0 }
        var pacing = schedule.compactEvery.map(CompactionCheckPacing.init(every:))
        var lastBlock: String?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            guard let due = [nextGC, nextCompaction].compactMap({ $0 }).min() else { return }
            // A graceful shutdown ends the wait, not a pass under way.
            do {
                try await cancelWhenGracefulShutdown {
                    try await Task.sleep(until: due, clock: .continuous)
                }
            } catch { return }
            if let next = nextGC, next <= .now, let every = schedule.gcEvery {
                lastBlock = await collect(lastBlock: lastBlock)
                nextGC = next + every
            }
            if let next = nextCompaction, next <= .now, var paced = pacing {
                nextCompaction = compactIfNeeded(due: next, pacing: &paced)
                pacing = paced
            }
        }
    }

    /// One GC run; returns why it is blocked, logged when it changed.
    private func collect(lastBlock: String?) async -> String? {
        do {
            var report = TombstoneCollectionReport()
            if hubLinks.isEmpty {
                report = try logbook.collectTombstones(peers: ledger, schedule.gcOptions)
            }
            for link in hubLinks {
                report = try await link.collect(schedule.gcOptions)
                // The hub hears how far this node got now, not at the next acknowledgement.
                try await link.pullSession.acknowledgeCursor()
            }
            if report.collected > 0 || report.unfenced > 0 {
                logger.info(
                    "gc: collected \(report.collected) tombstones (\(report.recordsRemoved) records), unfenced \(report.unfenced); history starts at \(report.historyStart)"
                )
            }
            if let reason = report.blockedBecause, reason != lastBlock {
                logger.info("gc: blocked: \(reason)")
            }
            return report.blockedBecause
        } catch {
            logger.error("gc failed: \(error); retrying")
            return lastBlock
        }
    }

    /// One compaction check unless nothing was appended since the last one; returns when
    /// the next is due (`CompactionCheckPacing`).
    private func compactIfNeeded(
        due: ContinuousClock.Instant, pacing: inout CompactionCheckPacing
    ) -> ContinuousClock.Instant {
        let nextOffset = logbook.nextOffset
        guard pacing.isNeeded(nextOffset: nextOffset) else { return due + pacing.every }
        let started = ContinuousClock.now
        guard compact() else {
            pacing.failed()
            return due + pacing.every
        }
        let now = ContinuousClock.now
        return pacing.checked(nextOffset: nextOffset, due: due, took: now - started, now: now)
    }

    /// One compaction check: the whole log's dirty ratio decides, so a log that lives in
    /// its active segment (most logs under 64 MiB) has that segment sealed and compacted
    /// once enough of it is superseded. False when it failed.
    private func compact() -> Bool {
        do {
            var options = CompactionOptions()
            options.sealing = .whenDirty
            let report = try logbook.compact(options)
            if report.didRewrite {
                let sealed =
                    report.sealedActiveSegment
                    ? " (sealed the active segment first: \(report.activeRecords) records)" : ""
                logger.info(
                    "compact: \(report.recordsBefore) -> \(report.recordsAfter) records, \(report.bytesBefore) -> \(report.bytesAfter) bytes in \(report.seconds) s\(sealed)"
                )
            }
            return true
        } catch {
            logger.error("compaction failed: \(error); retrying")
            return false
        }
    }
}
