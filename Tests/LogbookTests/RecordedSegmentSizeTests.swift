import Foundation
import Logbook
import LogbookStorage
import LogbookTesting
import Testing

// A segment size recorded at creation (`logbook init --segment-size`) is what every later
// open rolls at, whatever its own options say; a recorded size outside the log's bounds is
// refused naming the file, and a directory created without one keeps each open's options.
@Suite struct RecordedSegmentSizeTests {
    private func segmentFiles(_ directory: TemporaryDirectory) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".seg") }.count
    }

    private func fill(_ logbook: Logbook) async throws {
        for number in 0..<60 {
            try await logbook.insertOrUpdate(
                "entity/\(number)", fields: [("text", .string(String(repeating: "x", count: 60)))])
        }
        try logbook.close()
    }

    @Test func aRecordedSizeIsUsedByEveryLaterOpen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var creating = LogbookOptions()
        creating.log.segmentSizeMax = 4096
        creating.recordsSegmentSize = true
        try Logbook.open(directory: directory.path, nodeId: 1, options: creating).close()
        // A later open with default options (64 MiB) still rolls at 4 KiB.
        try await fill(try Logbook.open(directory: directory.path))
        #expect(try segmentFiles(directory) > 1)
    }

    @Test func withoutARecordedSizeEachOpenUsesItsOwn() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var small = LogbookOptions()
        small.log.segmentSizeMax = 4096
        try Logbook.open(directory: directory.path, nodeId: 1, options: small).close()
        try await fill(try Logbook.open(directory: directory.path))
        #expect(try segmentFiles(directory) == 1)
    }

    @Test(arguments: [0, 1, 4095, Int(Limits.segmentSizeMax) + 1, Int.max])
    func aRecordedSizeOutsideTheBoundsIsRefused(size: Int) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Logbook.open(directory: directory.path, nodeId: 1).close()
        let metadata = #"{"formatVersion":1,"nodeId":1,"segmentSizeMax":\#(size)}"#
        try Data(metadata.utf8).write(
            to: URL(fileURLWithPath: directory.path + "/" + Logbook.metadataFileName))
        do {
            try Logbook.open(directory: directory.path).close()
            Issue.record("a segment size of \(size) was accepted")
        } catch {
            #expect(error.code == .badMetadata)
            #expect("\(error)".contains("segmentSizeMax \(size)"), "\(error)")
            #expect("\(error)".contains(Logbook.metadataFileName))
        }
    }
}
