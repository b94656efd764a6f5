import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Issue 60, class 4: maintenance that fails must never stop writes. A compaction or a
// tombstone GC seals the active segment first. On a disk with room left in the active
// segment but none for new files, that seal failed and failed the instance: every write
// after it was refused until a reopen, while the same writes went through without the
// maintenance. Now a seal that fails once the active segment is synced throws and leaves
// the instance writable (as it was, or rolled with its manifest behind); the next
// maintenance once there is room seals, and a power cut in between loses nothing synced.
@Suite struct SealFailureTests {
    /// The part of a seal that finds no room.
    enum FullPart: String, CaseIterable, Sendable {
        case index, nextSegment, directorySync, manifest

        /// Whether an operation on `path` finds the disk full, the active segment being
        /// `active`.
        func isFull(_ path: String, active: String) -> Bool {
            switch self {
            case .index: path.contains(SegmentFileName.indexSuffix)
            case .nextSegment: path.hasSuffix(SegmentFileName.segmentSuffix) && path != active
            case .directorySync: path == SealFailureTests.directory
            case .manifest: path.contains("segments.manifest")
            }
        }
    }

    static let directory = "/data"

    private func options(_ fileSystem: SimulatedFileSystem) -> LogbookOptions {
        smallLogOptions(.buffered, fileSystem: fileSystem)
    }

    private func sealingCompaction() -> CompactionOptions {
        var settings = CompactionOptions()
        settings.dirtyRatioMin = 0
        settings.sealing = .always
        return settings
    }

    /// A Logbook with superseded records in its active segment, and that segment's path.
    private func writtenLogbook(_ fileSystem: SimulatedFileSystem) async throws -> (
        Logbook, String
    ) {
        let logbook = try Logbook.open(
            directory: Self.directory, nodeId: 1, options: options(fileSystem))
        for round in 0..<3 {
            for record in 0..<20 {
                try await logbook.insertOrUpdate("e/\(record)", fields: [("n", .int(Int64(round)))])
            }
        }
        try logbook.sync()
        let segments = try fileSystem.contentsOfDirectory(Self.directory).filter {
            SegmentFileName.baseOffset(ofSegment: $0) != nil
        }
        let active = try #require(segments.max())
        return (logbook, Self.directory + "/" + active)
    }

    @Test(arguments: FullPart.allCases)
    func aCompactionWhoseSealFindsNoRoomLeavesWritesGoing(part: FullPart) async throws {
        let fileSystem = SimulatedFileSystem()
        let (logbook, active) = try await writtenLogbook(fileSystem)
        fileSystem.failOperations(on: { part.isFull($0, active: active) })
        do {
            _ = try logbook.compact(sealingCompaction())
            Issue.record("\(part): the compaction found room")
        } catch {
            #expect(error.message.contains("not sealed (writes go on)"), "\(part): \(error)")
        }
        #expect(logbook.writeFailure == nil, "\(part): the failed seal failed the instance")
        // The disk is still full: writes into the active segment's room go on.
        try await logbook.insertOrUpdate("after/full", fields: [("n", 1)])
        try logbook.sync()
        fileSystem.stopFailingOperations()
        // With room again, the next maintenance compacts (and seals what is left to seal).
        let report = try logbook.compact(sealingCompaction())
        #expect(report.didRewrite, "\(part)")
        try await logbook.insertOrUpdate("after/room", fields: [("n", 2)])
        let digest = logbook.stateDigest()
        try logbook.close()
        let reopened = try Logbook.open(directory: Self.directory, options: options(fileSystem))
        #expect(reopened.stateDigest() == digest, "\(part)")
        #expect(reopened.getRecord("after/full")?.field("n") == 1, "\(part)")
        try reopened.close()
    }

    @Test(arguments: FullPart.allCases)
    func aPowerCutAfterAFailedSealLosesNothingSynced(part: FullPart) async throws {
        let fileSystem = SimulatedFileSystem()
        let (logbook, active) = try await writtenLogbook(fileSystem)
        fileSystem.failOperations(on: { part.isFull($0, active: active) })
        #expect(throws: LogbookError.self) { try logbook.sealActiveSegment() }
        try await logbook.insertOrUpdate("after/full", fields: [("n", 1)])
        try logbook.sync()
        let digest = logbook.stateDigest()
        var random = SeededGenerator(seed: 7)
        fileSystem.crash(using: &random)
        fileSystem.stopFailingOperations()
        let reopened = try Logbook.open(directory: Self.directory, options: options(fileSystem))
        #expect(reopened.stateDigest() == digest, "\(part)")
        #expect(reopened.getRecord("after/full")?.field("n") == 1, "\(part)")
        try await reopened.insertOrUpdate("after/reopen", fields: [("n", 2)])
        try reopened.close()
    }

    @Test func aTombstoneGCWhoseSealFindsNoRoomLeavesWritesGoing() async throws {
        let fileSystem = SimulatedFileSystem()
        let (logbook, active) = try await writtenLogbook(fileSystem)
        try await logbook.deleteRecord("e/1")
        try logbook.sync()
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0
        options.now = Date(timeIntervalSince1970: 1_000)
        let ledger = try PeerLedger(for: logbook)
        // The deletion is in the active segment: GC seals it, and there is no room for
        // its index.
        fileSystem.failOperations(on: { FullPart.index.isFull($0, active: active) })
        #expect(throws: LogbookError.self) {
            try logbook.collectTombstones(peers: ledger, options)
        }
        #expect(logbook.writeFailure == nil, "the failed seal failed the instance")
        try await logbook.insertOrUpdate("after/full", fields: [("n", 1)])
        fileSystem.stopFailingOperations()
        let report = try logbook.collectTombstones(peers: ledger, options)
        #expect(report.collected == 1, "\(report)")
        try logbook.close()
    }
}
