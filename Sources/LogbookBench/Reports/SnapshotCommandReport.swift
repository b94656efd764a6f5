import Foundation
import Logbook

/// `logbook snapshot DIR`: what the open loaded and replayed, and the snapshot written.
package struct SnapshotCommandReport: CommandReport {
    package let command = "snapshot"
    package var directory: String
    /// What the open found (`Logbook.snapshotLoad`).
    package var loaded: SnapshotLoad
    /// Changes replayed from the log after the loaded snapshot (the whole log without one).
    package var replayedChanges: Int
    package var snapshot: SnapshotReport

    package init(directory: String, logbook: Logbook, snapshot: SnapshotReport) {
        self.directory = directory
        loaded = logbook.snapshotLoad
        replayedChanges = logbook.replayStatistics.changes
        self.snapshot = snapshot
    }

    package var text: String {
        var lines: [String] = []
        for reason in loaded.setAside { lines.append("snapshot not trusted, set aside: \(reason)") }
        if let file = loaded.file {
            lines.append(
                "opened from \(file) (offset \(loaded.offset), \(loaded.entries) entries, "
                    + String(format: "%.3f s", loaded.seconds)
                    + "), then replayed \(replayedChanges) changes")
        } else {
            lines.append("opened by replaying the whole log (\(replayedChanges) changes)")
        }
        if snapshot.written {
            lines.append(
                "wrote \(snapshot.file): offset \(snapshot.offset), \(snapshot.entries) entries, "
                    + "\(formatBytes(snapshot.bytes)) in "
                    + String(format: "%.3f s", snapshot.seconds))
        } else {
            lines.append("\(snapshot.file) already covers the log (offset \(snapshot.offset))")
        }
        lines.append("digest: \(snapshot.digest)")
        return lines.joined(separator: "\n")
    }
}
