import Foundation
import Logbook

/// `logbook replay DIR`: how fast opening rebuilt the state, and the state it rebuilt.
package struct ReplayReport: CommandReport {
    package let command = "replay"
    package var directory: String
    package var changes: Int
    package var records: Int
    package var batches: Int
    package var seconds: Double
    package var changesPerSecond: Double
    /// Payload bytes per second before and after LZ4.
    package var rawBytesPerSecond: Double
    package var storedBytesPerSecond: Double
    package var liveRecords: Int
    package var tombstones: Int
    /// The node's logical clock after the replay.
    package var clock: UInt64
    /// The state digest (`Logbook.stateDigest`), equal on nodes with equal states.
    package var digest: String
    /// The snapshot the open loaded before replaying (`--use-snapshot`), and any set aside.
    package var snapshot: SnapshotLoad

    package init(directory: String, logbook: Logbook) {
        self.directory = directory
        let statistics = logbook.replayStatistics
        let seconds = max(statistics.seconds, 1e-9)
        changes = statistics.changes
        records = statistics.records
        batches = statistics.batches
        self.seconds = statistics.seconds
        changesPerSecond = Double(statistics.changes) / seconds
        rawBytesPerSecond = Double(statistics.rawBytes) / seconds
        storedBytesPerSecond = Double(statistics.storedBytes) / seconds
        liveRecords = logbook.records().count
        tombstones = logbook.tombstoneCount()
        clock = logbook.clock().currentTime()
        digest = String(describing: logbook.stateDigest())
        snapshot = logbook.snapshotLoad
    }

    package var text: String {
        var prefix = snapshot.setAside.map { "snapshot not trusted: \($0)\n" }.joined()
        if let file = snapshot.file {
            prefix +=
                "loaded \(file) (offset \(snapshot.offset), \(snapshot.entries) entries) in "
                + String(format: "%.3f s", snapshot.seconds) + "\n"
        }
        return prefix + """
            replayed \(changes) changes (\(records) records, \(batches) batches) in \(String(format: "%.3f", seconds)) s
              \(formatCount(changesPerSecond)) changes/s, \(formatBytes(Int64(rawBytesPerSecond)))/s raw, \(formatBytes(Int64(storedBytesPerSecond)))/s on disk
            state: \(liveRecords) live records, \(tombstones) tombstones, clock \(clock)
            digest: \(digest)
            """
    }
}
