import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// The active segment proves it belongs too. The manifest knows it only by its base offset,
// and every segment's first batch chained from 0, so another log's active segment of the
// same name opened as this log's: its records were served, and appends chained onto them.
// Now each segment's chain starts from a seed drawn from the log's identity and the
// segment's base offset (`SegmentChain`): a foreign active segment is refused by name, by
// every open, and left as it is (never cut as a torn tail). Logs written before seeding
// open as they are and seed from their next segment on.
@Suite struct ActiveSegmentBindingTests {
    private let settings = smallSegments(batchSizeTarget: 200)

    private func writeLog(at path: String, count: Int, identity: LogIdentity? = nil) throws {
        var configuration = settings
        configuration.identity = identity
        let log = try Log.open(directory: path, configuration: configuration)
        for number in 0..<count { try log.append(Array("record \(number)".utf8), version: 1) }
        try log.close()
    }

    private func records(of path: String, configuration: LogConfiguration) throws -> [[UInt8]] {
        let log = try Log.openReadOnly(directory: path, configuration: configuration)
        defer { try? log.close() }
        let cursor = try log.makeCursor(from: log.startOffset)
        var records: [[UInt8]] = []
        while try cursor.next() { cursor.forEachRecord { records.append(Array($1)) } }
        return records
    }

    private func firstPreviousCRC(ofSegment path: String) throws -> UInt32 {
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let header = try bytes.withUnsafeBytes { try BatchHeader.decode($0).get() }
        return header.previousBatchCRC
    }

    /// One batch or several, alone in the log or after sealed segments.
    @Test(arguments: [1, 12, 300])
    func anActiveSegmentFromAnotherLogIsRefusedByEveryOpenAndKept(records count: Int) throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        try writeLog(at: directory.path, count: count)
        try writeLog(at: other.path, count: count)
        let active = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(SegmentFileName.segmentSuffix) }.max())
        try #require(FileManager.default.fileExists(atPath: other.appending(active)))
        try FileManager.default.removeItem(atPath: directory.appending(active))
        try FileManager.default.copyItem(
            atPath: other.appending(active), toPath: directory.appending(active))
        let copied = FileManager.default.contents(atPath: directory.appending(active))

        for readOnly in [true, false] {
            do {
                let log =
                    readOnly
                    ? try Log.openReadOnly(directory: directory.path, configuration: settings)
                    : try Log.open(directory: directory.path, configuration: settings)
                try? log.close()
                Issue.record("another log's active segment opened (read-only: \(readOnly))")
            } catch {
                #expect(error.code == .corruption, "\(error)")
                #expect("\(error)".contains(active), "\(error)")
                #expect("\(error)".contains("not from this log's seed"), "\(error)")
            }
        }
        #expect(
            FileManager.default.contents(atPath: directory.appending(active)) == copied,
            "the refused segment was changed")
    }

    /// A segment written before seeding (the golden segment chains from 0) is read as it
    /// is; the manifest records that seeding starts after it, and the next segment the log
    /// rolls to chains from its seed.
    @Test func aLogFromBeforeSeedingOpensAndSeedsItsNextSegments() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let golden = GoldenSegmentTests.fixtures.appendingPathComponent("records.seg")
        try FileManager.default.createDirectory(
            atPath: directory.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: golden.path, toPath: directory.appending("00000000000000000000.seg"))
        var configuration = settings
        configuration.identity = LogIdentity(high: 7, low: 9)
        let before = try records(of: directory.path, configuration: configuration)
        #expect(before.count == 5)

        let log = try Log.open(directory: directory.path, configuration: configuration)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {  // incompressible, so that the log rolls
            try log.append(
                (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }, version: 1)
        }
        #expect(log.segmentCount > 1)
        let rolledTo = log.activeBaseOffset
        try log.close()
        let manifest = try String(
            contentsOfFile: directory.appending("segments.manifest"), encoding: .utf8)
        #expect(manifest.contains("\nchain 1 0\n"), "\(manifest)")
        #expect(
            try firstPreviousCRC(ofSegment: directory.appending("00000000000000000000.seg")) == 0)
        let seeded = try firstPreviousCRC(
            ofSegment: directory.appending(SegmentFileName.segment(baseOffset: rolledTo)))
        #expect(seeded != 0)
        let after = try records(of: directory.path, configuration: configuration)
        #expect(after.count == 205 && Array(after.prefix(5)) == before)
    }

    /// With its manifest removed (an operator accepting a loss), a log whose identity is
    /// known from `logbook.json` still checks every segment's seed.
    @Test func aLogThatLostItsManifestStillChecksItsSeeds() throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        let identity = LogIdentity(high: 1, low: 1)
        try writeLog(at: directory.path, count: 300, identity: identity)
        try writeLog(at: other.path, count: 300, identity: LogIdentity(high: 2, low: 2))
        var configuration = settings
        configuration.identity = identity
        let expected = try records(of: directory.path, configuration: configuration)
        try FileManager.default.removeItem(atPath: directory.appending("segments.manifest"))
        #expect(try records(of: directory.path, configuration: configuration) == expected)

        try FileManager.default.removeItem(atPath: directory.appending("00000000000000000000.seg"))
        try FileManager.default.copyItem(
            atPath: other.appending("00000000000000000000.seg"),
            toPath: directory.appending("00000000000000000000.seg"))
        #expect(throws: StorageError.self) {
            try Log.open(directory: directory.path, configuration: configuration).close()
        }
    }
}
