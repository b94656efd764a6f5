import Foundation
import Logbook

/// What `logbook inspect` says about maintenance: how much compaction would drop (a dry
/// run) and where tombstone GC stands.
package struct MaintenanceSummary: Encodable {
    /// The fraction of sealed records that are superseded.
    package var dirtyRatio: Double
    package var sealedRecords: Int
    /// Tombstones still in force, and the live (record, column) keys.
    package var liveTombstones: Int
    package var liveKeys: Int
    package var nodeId: UInt64
    /// Tombstones this node holds, and the offset GC has collected below.
    package var tombstones: Int
    package var collectedBelow: UInt64
    /// Collected records still fenced against local writes.
    package var fencedRecords: Int
    /// The first offset a peer can still pull from.
    package var historyStart: UInt64
    /// The replica snapshot an open loads (checked as opening checks it), and any it would
    /// set aside.
    package var snapshot: SnapshotLoad

    /// Opens `directory` read-only (no byte changes) and runs a dry-run compaction.
    package init(directory: String) throws {
        var options = LogbookOptions()
        options.durability = .buffered
        options.readOnly = true
        var dryRun = CompactionOptions()
        dryRun.dryRun = true
        let logbook = try Logbook.open(directory: directory, options: options)
        defer { try? logbook.close() }  // read-only: nothing pending to lose
        let report = try logbook.compact(dryRun)
        dirtyRatio = report.dirtyRatio
        sealedRecords = report.recordsBefore
        liveTombstones = report.tombstones
        liveKeys = report.liveKeys
        nodeId = logbook.nodeId
        tombstones = logbook.tombstoneCount()
        collectedBelow = logbook.collectedBelow
        fencedRecords = logbook.fencedRecordCount
        historyStart = logbook.historyStart
        snapshot = logbook.snapshotLoad
    }

    var text: String {
        """
        dirty ratio: \(String(format: "%.2f", dirtyRatio)) of \(sealedRecords) sealed records are superseded; live tombstones: \(liveTombstones); live keys: \(liveKeys)
        tombstone GC: node \(nodeId) holds \(tombstones) tombstones; collected below offset \(collectedBelow); \(fencedRecords) collected records fenced; history starts at \(historyStart)
        """ + snapshotText
    }

    private var snapshotText: String {
        var lines = snapshot.setAside.map { "\nsnapshot NOT TRUSTED: \($0)" }
        lines.append(
            snapshot.file.map {
                "\nsnapshot: \($0) checks out (offset \(snapshot.offset), \(snapshot.entries) entries); "
                    + "opening replays the log from there"
            } ?? "\nsnapshot: none usable; opening replays the whole log")
        return lines.joined()
    }
}
