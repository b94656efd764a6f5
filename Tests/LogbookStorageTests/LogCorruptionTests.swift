import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// The recovery policy, case by case: cutting the active segment at every byte position
// recovers exactly a prefix of what was written; flipping any byte of a sealed segment is
// reported with its file and position and never accepted; an invalid batch with valid batches
// after it is corruption, not a torn tail.
@Suite struct LogCorruptionTests {
    private let settings = smallSegments(batchSizeTarget: 60)

    /// Writes `count` small records in batches of about three; returns them.
    private func writeSmallLog(at path: String, count: Int, sealFirstSegment: Bool = false) throws
        -> [[UInt8]]
    {
        let log = try Log.open(directory: path, configuration: settings)
        let records = (0..<count).map { recordBytes($0, size: 17) }
        for (number, record) in records.enumerated() {
            try log.append(record, version: UInt64(number))
        }
        try log.close()
        return records
    }

    @Test func cuttingTheActiveSegmentAnywhereRecoversAPrefix() throws {
        let source = TemporaryDirectory()
        defer { source.remove() }
        let written = try writeSmallLog(at: source.path, count: 12)
        var recoveredCounts = Set<Int>()
        try forEachCut(ofFirstSegmentIn: source, settings) { cut, read, copy in
            #expect(read == Array(written.prefix(read.count)), "cut at \(cut)")
            recoveredCounts.insert(read.count)
            // The cut tail is gone for good: a second open finds a clean log.
            let again = try Log.open(directory: copy.path, configuration: settings)
            #expect(again.recovery.isClean, "cut at \(cut)")
            try again.close()
        }
        #expect(recoveredCounts.contains(0))
        #expect(recoveredCounts.contains(written.count))
        #expect(recoveredCounts.count >= 4, "every batch boundary is a recovery point")
    }

    @Test func truncationIsReportedWithBytesAndOffsets() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try writeSmallLog(at: directory.path, count: 12)
        let path = directory.appending(SegmentFileName.segment(baseOffset: 0))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size - 5))
        try handle.close()
        let log = try Log.open(directory: directory.path, configuration: settings)
        #expect(log.recovery.truncatedSegment == SegmentFileName.segment(baseOffset: 0))
        #expect(log.recovery.truncatedBytes > 0)
        #expect(log.recovery.truncatedAtByte + log.recovery.truncatedBytes == Int64(size - 5))
        #expect(log.recovery.firstLostOffset != nil)
        #expect(log.recovery.description.contains("truncated"))
        try log.close()
    }

    @Test func everyByteFlipInASealedSegmentIsDetected() throws {
        let source = TemporaryDirectory()
        defer { source.remove() }
        let log = try Log.open(directory: source.path, configuration: settings)
        for number in 0..<12 { try log.append(recordBytes(number, size: 17), version: 1) }
        try log.flush()
        // Force a roll so segment 0 is sealed: fill past the segment size.
        for number in 12..<400 { try log.append(recordBytes(number, size: 17), version: 1) }
        try log.close()
        let sealedName = SegmentFileName.segment(baseOffset: 0)
        let sealedBytes = try Data(contentsOf: URL(fileURLWithPath: source.appending(sealedName)))
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path)
        #expect(names.filter { $0.hasSuffix(".seg") }.count >= 2)
        for position in 0..<sealedBytes.count {
            let copy = TemporaryDirectory("flip")
            defer { copy.remove() }
            for name in names where name.hasSuffix(".seg") {
                try FileManager.default.copyItem(
                    atPath: source.appending(name), toPath: copy.appending(name))
            }
            var flipped = sealedBytes
            flipped[position] ^= 0x5A
            try flipped.write(to: URL(fileURLWithPath: copy.appending(sealedName)))
            let error = #expect(throws: StorageError.self, "flip at \(position)") {
                _ = try readAllRecords(at: copy.path, settings)
            }
            #expect(error?.code == .corruption, "flip at \(position)")
            #expect(error?.path?.hasSuffix(sealedName) == true, "flip at \(position)")
            #expect(error?.byteOffset != nil, "flip at \(position)")
        }
    }

    @Test func invalidBatchFollowedByValidOnesIsCorruptionNotATornTail() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try writeSmallLog(at: directory.path, count: 12)
        let path = directory.appending(SegmentFileName.segment(baseOffset: 0))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[70] ^= 0xFF  // inside the first batch's payload
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StorageError.self) {
            _ = try Log.open(directory: directory.path, configuration: settings)
        }
        #expect(error?.code == .corruption)
        #expect(error?.byteOffset == 0)
        #expect(error?.message.contains("a valid batch follows") == true)
        // Nothing was cut: the file is as it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func verifyReportsTheDamagedSegmentAndReadsTheRest() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var configuration = settings
        configuration.segmentSizeMax = 4096
        let log = try Log.open(directory: directory.path, configuration: configuration)
        for number in 0..<400 { try log.append(recordBytes(number, size: 17), version: 1) }
        try log.close()
        let path = directory.appending(SegmentFileName.segment(baseOffset: 0))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[200] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let reopened = try Log.open(directory: directory.path, configuration: configuration)
        let summaries = try reopened.inspect()
        #expect(summaries.first?.problem?.code == .corruption)
        #expect(summaries.dropFirst().allSatisfy { $0.problem == nil })
        #expect(throws: StorageError.self) { _ = try reopened.verify() }
        try reopened.close()
    }
}
