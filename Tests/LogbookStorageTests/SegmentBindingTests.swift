import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// Every segment proves it belongs to its log: the manifest names the log's identity and
// each sealed segment's last batch CRC (which, through the batches' CRC chain, stands for
// every byte of it). A segment of the same name and size copied from another log, or two
// segments of one size with their names swapped, used to open (and `verify` passed while
// reads failed or read the other log's records); now every open refuses them by name.
@Suite struct SegmentBindingTests {
    private let settings = smallSegments(batchSizeTarget: 200)

    /// A log of incompressible records (stored raw, so two logs of as many records have
    /// segments of equal sizes); returns the segment names, oldest first.
    private func writeLog(at path: String, count: Int = 400) throws -> [String] {
        let log = try Log.open(directory: path, configuration: settings)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<count {
            try log.append(
                (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }, version: 1)
        }
        try log.close()
        return try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(SegmentFileName.segmentSuffix) }.sorted()
    }

    private func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    private func expectRefusedByEveryOpen(_ path: String, mentioning fragments: [String]) {
        for readOnly in [true, false] {
            do {
                let log =
                    readOnly
                    ? try Log.openReadOnly(directory: path, configuration: settings)
                    : try Log.open(directory: path, configuration: settings)
                try? log.close()
                Issue.record("the log opened (read-only: \(readOnly))")
            } catch {
                #expect(error.code == .corruption, "\(error)")
                for fragment in fragments {
                    #expect("\(error)".contains(fragment), "\(error)")
                }
            }
        }
    }

    @Test(arguments: [false, true])
    func aSealedSegmentCopiedFromAnotherLogIsRefused(withItsIndex: Bool) throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        let segments = try writeLog(at: directory.path)
        let otherSegments = try writeLog(at: other.path)
        let victim = segments[1]
        try #require(otherSegments[1] == victim)
        try #require(
            try size(directory.appending(victim)) == size(other.appending(victim)),
            "the two logs' segments differ in size; the test needs them equal")
        let copied =
            withItsIndex
            ? [victim, victim.replacingOccurrences(of: ".seg", with: ".idx")] : [victim]
        for name in copied {
            try FileManager.default.removeItem(atPath: directory.appending(name))
            try FileManager.default.copyItem(
                atPath: other.appending(name), toPath: directory.appending(name))
        }
        // With its index the segment's last batch is checked against the manifest; without,
        // the index is rebuilt and its first batch does not chain from this log's seed.
        expectRefusedByEveryOpen(
            directory.path,
            mentioning: withItsIndex
                ? [victim, "another segment's bytes", "sealed it with"]
                : [victim, "not from this log's seed", "belongs to another log"])
    }

    @Test func twoSealedSegmentsOfOneSizeWithTheirNamesSwappedAreRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let (first, second) = (segments[1], segments[2])
        try #require(try size(directory.appending(first)) == size(directory.appending(second)))
        let parked = directory.appending("parked")
        try FileManager.default.moveItem(atPath: directory.appending(first), toPath: parked)
        try FileManager.default.moveItem(
            atPath: directory.appending(second), toPath: directory.appending(first))
        try FileManager.default.moveItem(atPath: parked, toPath: directory.appending(second))
        // The first of the two is refused at its first batch: it chains from the seed of
        // the other's base offset.
        expectRefusedByEveryOpen(directory.path, mentioning: [first, "not from this log's seed"])
    }

    @Test func theIdentityStaysAndAManifestOfAnotherLogIsRefused() throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        _ = try writeLog(at: directory.path, count: 10)
        _ = try writeLog(at: other.path, count: 10)
        let identity = try Log.openReadOnly(directory: directory.path).identity
        let reopened = try Log.open(directory: directory.path, configuration: settings)
        #expect(reopened.identity == identity)
        try reopened.close()
        var expecting = settings
        expecting.identity = identity
        try Log.open(directory: directory.path, configuration: expecting).close()

        try FileManager.default.removeItem(atPath: directory.appending("segments.manifest"))
        try FileManager.default.copyItem(
            atPath: other.appending("segments.manifest"),
            toPath: directory.appending("segments.manifest"))
        do {
            try Log.open(directory: directory.path, configuration: expecting).close()
            Issue.record("a manifest of another log was taken")
        } catch {
            #expect(error.code == .corruption && error.message.contains("belongs to log"))
        }
    }

    @Test func aNewHistoryIsDurableAndStartsAtTheLogsEnd() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try writeLog(at: directory.path, count: 30)
        let log = try Log.open(directory: directory.path, configuration: settings)
        let before = log.history
        try log.beginHistory()
        let after = log.history
        try log.close()
        #expect(after.id != before.id && after.startOffset == 30)
        let reopened = try Log.openReadOnly(directory: directory.path, configuration: settings)
        #expect(reopened.history == after)
        try reopened.close()
    }

    /// A manifest of format 1 (no identity, history or CRCs) is read, checked by sizes, and
    /// rewritten in format 2 by the next writable open; from then on copies are caught.
    @Test func aVersionOneManifestIsUpgradedByTheNextWriter() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let segments = try writeLog(at: directory.path)
        let sealed = try segments.dropLast().map { name in
            "sealed \(SegmentFileName.baseOffset(ofSegment: name) ?? 0) "
                + "\(try size(directory.appending(name)))"
        }
        let active = "active \(SegmentFileName.baseOffset(ofSegment: segments.last ?? "") ?? 0)"
        var text =
            (["logbook segment manifest 1"] + sealed + [active]).joined(separator: "\n") + "\n"
        text += "crc32c \(String(CRC32C.checksum(Array(text.utf8)), radix: 16))\n"
        let manifest = directory.appending("segments.manifest")
        try Data(text.utf8).write(to: URL(fileURLWithPath: manifest))

        let log = try Log.open(directory: directory.path, configuration: settings)
        #expect(log.recovery.description.contains("in version 2"), "\(log.recovery)")
        try log.close()
        let upgraded = try String(contentsOfFile: manifest, encoding: .utf8)
        #expect(upgraded.hasPrefix("logbook segment manifest 2\nlog "), "\(upgraded)")
        #expect(upgraded.contains("\nhistory "))
    }
}
