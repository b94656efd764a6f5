import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// A log knows its segments: a sealed segment deleted, emptied or cut, an active segment
// deleted, or a foreign segment dropped among them is refused at open with the files and
// offsets named, instead of opening a shorter history. A swap file is applied only when it
// is the rewrite the manifest recorded; anything else is set aside and reported.
@Suite struct SegmentManifestTests {
    private let settings = smallSegments(batchSizeTarget: 200)

    /// A log of `count` records over several segments; returns the segment file names.
    private func writeLog(at path: String, count: Int = 600) throws -> [String] {
        let log = try Log.open(directory: path, configuration: settings)
        for number in 0..<count { try log.append(recordBytes(number, size: 40), version: 1) }
        try log.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
        return names.filter { $0.hasSuffix(SegmentFileName.segmentSuffix) }.sorted()
    }

    private func expectRefused(_ path: String, mentioning fragments: [String]) {
        do {
            let log = try Log.open(directory: path, configuration: settings)
            try? log.close()
            Issue.record("the log opened")
        } catch {
            #expect(error.code == .corruption, "\(error)")
            for fragment in fragments {
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
    }

    private func recordCount(_ path: String) throws -> Int {
        let log = try Log.open(directory: path, configuration: settings)
        defer { try? log.close() }
        var count = 0
        let cursor = try log.makeCursor(from: 0)
        while try cursor.next() { cursor.forEachRecord { _, _ in count += 1 } }
        return count
    }

    @Test func aDeletedMiddleSegmentIsRefusedWithItsOffsets() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        #expect(segments.count >= 4)
        let victim = segments[2]
        try FileManager.default.removeItem(atPath: directory.appending(victim))
        try? FileManager.default.removeItem(
            atPath: directory.appending(victim.replacingOccurrences(of: ".seg", with: ".idx")))
        expectRefused(directory.path, mentioning: [victim, "is missing", "offsets "])
    }

    @Test(arguments: [0, 1])
    func anEmptiedOrCutSealedSegmentIsRefused(which: Int) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let path = directory.appending(segments[which])
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: which == 0 ? 0 : 100)
        try handle.close()
        expectRefused(directory.path, mentioning: [segments[which], "cut, emptied or replaced"])
    }

    @Test func aDeletedActiveSegmentIsRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let active = try #require(segments.last)
        try FileManager.default.removeItem(atPath: directory.appending(active))
        expectRefused(directory.path, mentioning: [active, "the active segment"])
    }

    @Test func aForeignSegmentAmongTheLogsIsRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let stray = SegmentFileName.segment(baseOffset: 3)
        try FileManager.default.copyItem(
            atPath: directory.appending(segments[0]), toPath: directory.appending(stray))
        expectRefused(directory.path, mentioning: [stray, "not one of the log's segments"])
    }

    @Test func aStrayEmptySwapFileIsSetAsideAndDeletesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let end = try #require(SegmentFileName.baseOffset(ofSegment: segments[2]))
        let swap = SegmentFileName.swap(baseOffset: 0, endOffset: end)
        #expect(FileManager.default.createFile(atPath: directory.appending(swap), contents: Data()))
        let log = try Log.open(directory: directory.path, configuration: settings)
        let report = log.recovery.description
        try log.close()
        #expect(report.contains("set aside \(swap)"), "\(report)")
        #expect(report.contains("no swap of offsets 0..<\(end) is recorded"), "\(report)")
        #expect(FileManager.default.fileExists(atPath: directory.appending(swap + ".rejected")))
        #expect(try recordCount(directory.path) == 600)
    }

    @Test func aSwapFileThatIsNotTheRecordedRewriteIsSetAside() throws {
        // A valid segment of another log under a swap name: valid batches, wrong content.
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        let segments = try writeLog(at: directory.path)
        let otherSegments = try writeLog(at: other.path, count: 50)
        let end = try #require(SegmentFileName.baseOffset(ofSegment: segments[1]))
        let swap = SegmentFileName.swap(baseOffset: 0, endOffset: end)
        try FileManager.default.copyItem(
            atPath: other.appending(otherSegments[0]), toPath: directory.appending(swap))
        let log = try Log.open(directory: directory.path, configuration: settings)
        #expect(log.recovery.description.contains("set aside"))
        try log.close()
        #expect(try recordCount(directory.path) == 600)
    }

    @Test func aLogWithoutAManifestGetsOneAndIsCheckedFromThenOn() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        try FileManager.default.removeItem(atPath: directory.appending("segments.manifest"))
        let log = try Log.open(directory: directory.path, configuration: settings)
        #expect(log.recovery.description.contains("created segments.manifest"))
        try log.close()
        try FileManager.default.removeItem(atPath: directory.appending(segments[1]))
        expectRefused(directory.path, mentioning: [segments[1], "is missing"])
    }

    @Test func aDamagedManifestIsRefusedAndNamed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try writeLog(at: directory.path)
        let path = directory.appending("segments.manifest")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            _ = try Log.open(directory: directory.path, configuration: settings)
            Issue.record("a damaged manifest was accepted")
        } catch {
            #expect(error.code == .corruption)
            #expect(error.message.contains("checksum mismatch"), "\(error)")
            #expect(error.path == path)
        }
    }

    @Test func aCleanReopenChangesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try writeLog(at: directory.path)
        let path = directory.appending("segments.manifest")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let log = try Log.open(directory: directory.path, configuration: settings)
        #expect(log.recovery.isClean)
        try log.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try recordCount(directory.path) == 600)
    }
}
