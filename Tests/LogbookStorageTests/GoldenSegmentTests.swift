import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// Golden files pin the on-disk format: Fixtures/segment-v1/records.seg was written by this
// build's encoder from the records listed in records.expected.txt. Every later build must
// decode it to exactly those records, and encoding the same records must give the same
// bytes. Regenerate (only for a deliberate format change, with a version bump and a
// docs/format/segment.md update) with LOGBOOK_UPDATE_GOLDEN=1, and review the diff.
@Suite struct GoldenSegmentTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/segment-v1")

    /// The records of the golden segment: empty, text, binary, compressible, incompressible.
    static var goldenBatches: [[(offset: UInt64, version: UInt64, bytes: [UInt8])]] {
        var incompressible: [UInt8] = []
        var state: UInt32 = 2_463_534_242
        for _ in 0..<200 {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            incompressible.append(UInt8(truncatingIfNeeded: state))
        }
        return [
            [
                (0, 1, []),
                (1, 2, Array("hello, logbook".utf8)),
                (2, 2, [0x00, 0xFF, 0x7F, 0x80]),
            ],
            [
                (3, 5, Array(String(repeating: "compressible text ", count: 20).utf8)),
                (7, 9, incompressible),  // a hole at 4...6, as compaction leaves
            ],
        ]
    }

    static func encodeGoldenSegment() -> [UInt8] {
        var segment: [UInt8] = []
        var previousCRC: UInt32 = 0
        for batch in goldenBatches {
            var encoder = BatchEncoder()
            for record in batch {
                record.bytes.withUnsafeBytes {
                    encoder.append(offset: record.offset, version: record.version, record: $0)
                }
            }
            let (bytes, header) = encoder.encode(previousBatchCRC: previousCRC)
            segment += bytes
            previousCRC = header.batchCRC
        }
        return segment
    }

    static func describe(_ records: [(UInt64, [UInt8])]) -> String {
        records.map { offset, bytes in
            "\(offset) \(bytes.count) \(bytes.map { String(format: "%02x", $0) }.joined())"
        }.joined(separator: "\n") + "\n"
    }

    @Test func goldenSegmentDecodesToTheExpectedRecords() throws {
        let segmentURL = Self.fixtures.appendingPathComponent("records.seg")
        let expectedURL = Self.fixtures.appendingPathComponent("records.expected.txt")
        if ProcessInfo.processInfo.environment["LOGBOOK_UPDATE_GOLDEN"] == "1" {
            try Data(Self.encodeGoldenSegment()).write(to: segmentURL)
            let records = Self.goldenBatches.flatMap { $0.map { ($0.offset, $0.bytes) } }
            try Self.describe(records).write(to: expectedURL, atomically: true, encoding: .utf8)
        }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.copyItem(
            atPath: segmentURL.path,
            toPath: directory.appending(SegmentFileName.segment(baseOffset: 0)))
        let log = try Log.open(directory: directory.path)
        #expect(log.recovery.isClean)
        #expect(log.nextOffset == 8)
        var records: [(UInt64, [UInt8])] = []
        let cursor = try log.makeCursor(from: 0)
        while try cursor.next() { cursor.forEachRecord { records.append(($0, Array($1))) } }
        try log.close()
        #expect(Self.describe(records) == (try String(contentsOf: expectedURL, encoding: .utf8)))
    }

    @Test func encodingTheGoldenRecordsGivesTheGoldenBytes() throws {
        let golden = try [UInt8](
            Data(contentsOf: Self.fixtures.appendingPathComponent("records.seg")))
        #expect(Self.encodeGoldenSegment() == golden)
    }

    @Test func goldenHeaderFieldsAreWhereTheFormatDocumentSaysTheyAre() throws {
        let golden = try [UInt8](
            Data(contentsOf: Self.fixtures.appendingPathComponent("records.seg")))
        func u32(_ at: Int) -> UInt32 {
            golden[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        #expect(u32(0) == 0x184D_2A5B)  // LZ4 skippable frame magic
        #expect(u32(4) == 56)
        #expect(Array(golden[8..<12]) == Array("LGBK".utf8))
        #expect(golden[12] == 1 && golden[13] == 0)  // format version 1
        #expect(golden[14] == 1)  // codec: LZ4 frame
        #expect(u32(24) == 3)  // record count of the first batch
        // The LZ4 frame header right after the 64-byte batch header.
        #expect(Array(golden[64..<71]) == [0x04, 0x22, 0x4D, 0x18, 0x60, 0x70, 0x73])
    }
}
