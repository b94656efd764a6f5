import Logbook
import LogbookCRDT

extension LogBenchmark {
    /// The state digest of the workload merged into a `ReplicaState`: the first digest,
    /// which hashes every record (as after an open), and a digest after 10,000 more accepted
    /// changes, which hashes only the records they touched. Merging is untimed setup. The
    /// first figure's rate is the workload's changes per second of digest, to set beside
    /// open's; the second's is the changes since the last digest per second of digest.
    func digestFigures(_ bulk: [Change<String, String, Value>]) async -> [BenchFigure] {
        let chunks = Self.chunksOfTenThousand(bulk)
        // Newer versions of the first 10,000 changes: each wins over what is there.
        let later = bulk.prefix(10_000).map { change in
            var newer = change
            newer.colVersion = change.colVersion &+ 1
            newer.dbVersion = change.dbVersion &+ UInt64(1) << 32
            return newer
        }
        func merged() -> ReplicaState {
            let replica = ReplicaState(nodeId: 1)
            for chunk in chunks { _ = replica.merge(chunk) }
            return replica
        }
        var records = 0
        let (fullSeconds, fullPeak) = await measure(runs: runs) {
            let replica = merged()
            records = replica.recordCount + replica.tombstoneCount()
            let started = ContinuousClock.now
            _ = StateDigest(of: replica)
            return (ContinuousClock.now - started).seconds
        }
        var accepted = 0
        let (laterSeconds, _) = await measure(runs: runs) {
            let replica = merged()
            _ = StateDigest(of: replica)
            accepted = replica.merge(later).count
            let started = ContinuousClock.now
            _ = StateDigest(of: replica)
            return (ContinuousClock.now - started).seconds
        }
        let milliseconds = { (seconds: Double) in String(format: "%.2f ms", seconds * 1e3) }
        return [
            BenchFigure(
                system: "Logbook", name: "state digest: first, every record",
                changesPerSecond: Double(bulk.count) / fullSeconds, peakMegabytes: fullPeak,
                note: "\(records) records hashed in \(milliseconds(fullSeconds))"),
            BenchFigure(
                system: "Logbook", name: "state digest: after 10k more changes",
                changesPerSecond: Double(accepted) / laterSeconds,
                note: "\(accepted) changes accepted since the last: \(milliseconds(laterSeconds))"),
        ]
    }
}
