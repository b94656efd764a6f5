import Foundation
import Logging
import ServiceLifecycle

/// How a hub runs tombstone GC over its streams (`HubStore.collectTombstones`).
public struct HubCollectionSchedule: Sendable, Equatable {
    /// A pass over every stream this often (nil: never; `logbook hub gc` runs one by hand).
    public var every: Duration?
    /// Collect only tombstones the hub has held at least this long, in seconds (default
    /// one day, as a node's GC).
    public var retentionSeconds: Double = 86_400
    /// Delete a tombstone only this long after every node collected it, in seconds: longer
    /// than any push takes from being sent to being committed (a node gives up after 60 s;
    /// each database call of a request is bounded by `databaseWaitMax`, 15 s). Default
    /// 10 minutes.
    public var graceSeconds: Double = 600
    /// How long a pass waits for another pass over the same stream to finish, in seconds,
    /// before it skips the stream. 0 (the scheduled passes): skip at once, the next pass
    /// comes soon. `logbook hub gc` waits, since an operator who runs it wants the pass.
    public var lockWaitSeconds: Double = 0

    /// The defaults: no scheduled passes.
    public init() {}

    /// This schedule, its passes waiting up to `seconds` for a running pass.
    public func waitingForRunningPasses(seconds: Double) -> Self {
        var schedule = self
        schedule.lockWaitSeconds = seconds
        return schedule
    }
}

/// A hub process's scheduled GC passes, until graceful shutdown. Several hub processes may
/// run them at once: a stream's pass takes an advisory lock, and a pass that finds it taken
/// skips the stream. Runs only when `schedule.every` is set: a service that returns ends
/// its group.
struct HubCollectionService: Service {
    let store: HubStore
    let schedule: HubCollectionSchedule
    let logger: Logger

    func run() async throws {
        guard let every = schedule.every else { return }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: every) }
            } catch { return }
            do {
                for report in try await store.collectTombstones(schedule) where report.deleted > 0 {
                    logger.info("gc: \(report)")
                }
            } catch {
                logger.warning("gc pass failed: \(error); trying again in \(every)")
            }
        }
    }
}

extension HubStore {
    /// One GC pass over each stream in `streams` (nil: every stream).
    public func collectTombstones(_ schedule: HubCollectionSchedule, streams: [String]? = nil)
        async throws -> [HubCollectionReport]
    {
        var reports: [HubCollectionReport] = []
        let names: [String]
        if let streams { names = streams } else { names = try await streamNames() }
        for name in names {
            reports.append(
                try await collectTombstones(
                    in: try await stream(named: name, create: false),
                    retentionSeconds: schedule.retentionSeconds,
                    graceSeconds: schedule.graceSeconds, lockWaitSeconds: schedule.lockWaitSeconds))
        }
        return reports
    }
}
