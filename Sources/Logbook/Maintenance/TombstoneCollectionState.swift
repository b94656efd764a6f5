import Foundation
import LogbookCRDT
import LogbookStorage

/// What tombstone GC has done, durably (`tombstone-gc.json` beside the log): how far it has
/// collected, from where history is incomplete, when the log reached which offset (for the
/// retention time), and the collected records still fenced against local re-insert.
/// Written whole through `FileSystem.replaceFile` (temporary file, fsync, rename, directory
/// fsync), so a crash leaves the old or the new version.
struct TombstoneCollectionState: Codable, Equatable, Sendable {
    static let fileName = "tombstone-gc.json"

    /// Every tombstone this node's log held below this offset has been collected. Sent to
    /// peers in acknowledgements: their fences wait for it.
    var collectedBelow: UInt64 = 0
    /// History below this offset lacks collected tombstones: a pull from below it gets
    /// "snapshot required". Moves only when a GC run removed something.
    var historyStart: UInt64 = 0
    /// When GC runs saw the log end where: every record below `logEnd` existed at `time`.
    /// The retention time is measured from these (never from a record's own content).
    var sightings: [Sighting] = []
    /// Collected records still fenced against local writes, one entry per GC run.
    var rounds: [FenceRound] = []
    /// GC through hubs, per hub stream URL (the peer name of its cursors): how far this
    /// node collected what the hub listed, and how far the hub says every node did.
    var hubs: [String: HubCollection]?

    /// This node's GC through one hub stream, in hub versions.
    struct HubCollection: Codable, Equatable, Sendable {
        /// This node collected every tombstone the hub listed below this version (sent back
        /// in acknowledgements).
        var listedCollectedBelow: UInt64 = 0
        /// Every registered node collected every listed tombstone below this version: the
        /// hub's rounds below it are unfenced.
        var streamCollectedBelow: UInt64 = 0
    }

    /// The log end at a moment.
    typealias Sighting = RetentionSighting

    /// The records one GC run collected, fenced until every registered peer has collected
    /// them too.
    struct FenceRound: Codable, Equatable, Sendable {
        /// The run's frontier: it collected tombstones logged below this offset.
        var collectedBelow: UInt64
        /// Seconds since 1970.
        var time: Double
        /// Per peer node id (decimal): the peer's log end in an acknowledgement of ours at
        /// or past `collectedBelow`. The peer held these records' tombstones below it, so
        /// once its own GC frontier passes it, it has collected them too.
        var peerLogEnds: [String: UInt64]
        /// The collected records, with the deletion that tombstoned them here.
        var records: [FencedRecord]
        /// For a round of GC through a hub: the hub stream's URL. Its fence lifts when the hub
        /// says every node collected below `hubVersionsBelow` (`peerLogEnds` is unused).
        var hub: String? = nil
        /// The round collected tombstones the hub listed below this version.
        var hubVersionsBelow: UInt64? = nil
    }

    /// One collected record.
    struct FencedRecord: Codable, Equatable, Sendable {
        var id: String
        var dbVersion: UInt64
        var nodeId: UInt64
    }

    /// Every fenced record id.
    var fencedIds: Set<String> { Set(rounds.lazy.flatMap(\.records).map(\.id)) }

    /// Tombstones logged below this are old enough to collect (`RetentionSighting`).
    func retainedBelow(now: Double, retention: Double) -> UInt64 {
        sightings.retainedBelow(now: now, retention: retention)
    }

    /// Adds a sighting (`RetentionSighting`).
    mutating func noteSighting(_ sighting: Sighting, retention: Double) {
        sightings.note(sighting, retention: retention)
    }

    static func read(directory: String, fileSystem: any FileSystem) throws(LogbookError)
        -> TombstoneCollectionState
    {
        let path = directory + "/" + fileName
        guard let bytes = try SmallFiles.read(path, limit: 64 << 20, fileSystem: fileSystem) else {
            return TombstoneCollectionState()
        }
        do {
            return try JSONDecoder().decode(TombstoneCollectionState.self, from: Data(bytes))
        } catch {
            throw LogbookError(.badMetadata, "tombstone GC state unreadable: \(error)", path: path)
        }
    }

    func write(directory: String, fileSystem: any FileSystem) throws(LogbookError) {
        try SmallFiles.writeJSON(self, to: directory + "/" + Self.fileName, fileSystem: fileSystem)
    }
}
