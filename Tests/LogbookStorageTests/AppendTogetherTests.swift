import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// `Log.appendTogether` keeps its records in one batch, so recovery keeps all of them or none.
// Method: with 60-byte batches, single records before and after a group of 20 records
// (about seven batches' worth) written together; the active segment cut at every byte
// position recovers a prefix of the records that never holds part of the group. Refusals:
// a group larger than a batch may be changes nothing.
@Suite struct AppendTogetherTests {
    private let settings = smallSegments(batchSizeTarget: 60)

    private func appendTogether(_ records: [[UInt8]], to log: Log, version: UInt64)
        throws(StorageError)
    {
        try log.appendTogether(
            count: records.count, describedBy: { (records[$0].count, version) },
            writtenBy: { index, pointer in
                records[index].withUnsafeBytes { $0.writeBytes(to: pointer) }
            })
    }

    @Test func aCutAnywhereKeepsTheGroupWholeOrNotAtAll() throws {
        let source = TemporaryDirectory()
        defer { source.remove() }
        let before = (0..<5).map { recordBytes($0, size: 17) }
        let group = (5..<25).map { recordBytes($0, size: 17) }
        let after = (25..<30).map { recordBytes($0, size: 17) }
        let log = try Log.open(directory: source.path, configuration: settings)
        for record in before { try log.append(record, version: 1) }
        try appendTogether(group, to: log, version: 2)
        for record in after { try log.append(record, version: 3) }
        try log.close()
        let written = before + group + after
        #expect(try readAllRecords(at: source.path, settings) == written)
        var recoveredCounts = Set<Int>()
        try forEachCut(ofFirstSegmentIn: source, settings) { cut, read, _ in
            #expect(read == Array(written.prefix(read.count)), "cut at \(cut)")
            #expect(
                read.count <= before.count || read.count >= before.count + group.count,
                "cut at \(cut) kept \(read.count - before.count) of the group's \(group.count)")
            recoveredCounts.insert(read.count)
        }
        #expect(recoveredCounts.contains(before.count + group.count), "the group's batch ends")
        #expect(recoveredCounts.contains(written.count))
    }

    @Test func aGroupLargerThanOneBatchIsRefusedAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path, configuration: settings)
        try log.append(recordBytes(0, size: 17), version: 1)
        let huge = [[UInt8]](repeating: [UInt8](repeating: 7, count: 1 << 20), count: 17)
        #expect(huge.reduce(0) { $0 + $1.count } > Limits.batchRawSizeMax)
        do throws(StorageError) {
            try appendTogether(huge, to: log, version: 2)
            Issue.record("17 MiB were appended as one batch")
        } catch {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.message.contains("cannot be one batch"), "\(error)")
        }
        #expect(log.nextOffset == 1)
        try log.close()
        #expect(try readAllRecords(at: directory.path, settings) == [recordBytes(0, size: 17)])
    }
}
