import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A log smaller than a segment keeps every record in its active segment, which compaction
// never rewrites: asked to, it seals that segment first and compacts it with the rest
// (`logbook compact` always, a serving node when the whole log is dirty enough), and the
// log replays to the same state; a dry run seals nothing and changes no segment.
@Suite struct ActiveSegmentCompactionTests {
    /// Default segments (64 MiB): everything written here stays in the active segment.
    private func open(_ directory: TemporaryDirectory) throws -> Logbook {
        var options = LogbookOptions()
        options.durability = .buffered
        return try Logbook.open(directory: directory.path, nodeId: 1, options: options)
    }

    private func segments(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".seg") {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name))
        }
        return files
    }

    /// `rounds` values of `v` on each of `records` records.
    private func write(_ logbook: Logbook, records: Int, rounds: ClosedRange<Int>) async throws {
        for round in rounds {
            for record in 0..<records {
                try await logbook.insertOrUpdate("r\(record)", fields: [("v", .int(Int64(round)))])
            }
        }
        try logbook.sync()
    }

    @Test func aLogInItsActiveSegmentIsCompactedOnceSealingIsAsked() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try open(directory)
        try await write(logbook, records: 20, rounds: 0...9)
        let (digest, clock, sync) = (
            logbook.stateDigest(), logbook.clock(), logbook.getChangesSince(0)
        )

        var options = CompactionOptions()
        options.dirtyRatioMin = 0
        let sealedOnly = try logbook.compact(options)  // .never: nothing sealed to compact
        #expect(!sealedOnly.didRewrite && sealedOnly.recordsBefore == 0)
        // 200 changes after the open's epoch mark, which compaction keeps.
        #expect(!sealedOnly.sealedActiveSegment && sealedOnly.activeRecords == 201)

        options.sealing = .always
        options.dryRun = true
        let files = try segments(directory)
        let dryRun = try logbook.compact(options)
        #expect(dryRun.sealedActiveSegment && !dryRun.didRewrite)
        #expect(dryRun.activeRecords == 201 && dryRun.activeSuperseded == 160)
        #expect(dryRun.recordsBefore == 201 && dryRun.recordsAfter == 41)
        #expect(try segments(directory) == files, "a dry run changes no segment")

        options.dryRun = false
        let size = logbook.sizeBytes
        let report = try logbook.compact(options)
        #expect(report.sealedActiveSegment && report.didRewrite)
        #expect(report.recordsBefore == 201 && report.recordsAfter == 41)
        #expect(logbook.sizeBytes < size)
        #expect(logbook.stateDigest() == digest)
        // Writes go on in the new active segment.
        try await write(logbook, records: 1, rounds: 10...10)
        let later = logbook.stateDigest()
        try logbook.close()

        let reopened = try open(directory)
        #expect(reopened.stateDigest() == later)
        #expect(reopened.clock().currentTime() == clock.currentTime() + 1)
        #expect(
            reopened.getChangesSince(0).filter { $0.recordId != "r0" }
                == sync.filter { $0.recordId != "r0" })
        try reopened.close()
    }

    @Test func aServingNodeSealsOnlyWhenTheWholeLogIsDirtyEnough() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try open(directory)
        var options = CompactionOptions()
        options.sealing = .whenDirty
        options.dirtyRatioMin = 0.5
        // Three changes per record: the first (its creation) stays, the last wins, one of
        // three is superseded, below the ratio. The open's epoch mark is one record more.
        try await write(logbook, records: 50, rounds: 0...2)
        let clean = try logbook.compact(options)
        #expect(!clean.sealedActiveSegment && !clean.didRewrite)
        #expect(clean.activeRecords == 151 && clean.activeSuperseded == 50)
        // Six per record: four of six superseded.
        try await write(logbook, records: 50, rounds: 3...5)
        let digest = logbook.stateDigest()
        let dirty = try logbook.compact(options)
        #expect(dirty.sealedActiveSegment && dirty.didRewrite)
        #expect(dirty.recordsBefore == 301 && dirty.recordsAfter == 101)
        #expect(logbook.stateDigest() == digest)
        try logbook.close()
        let reopened = try open(directory)
        #expect(reopened.stateDigest() == digest)
        try reopened.close()
    }
}
