import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// Records written through Log come back byte for byte, at every size that matters: an empty
// flush, one record, batch and segment boundaries, records bigger than a batch and bigger
// than an LZ4 block, across reopen.
@Suite struct LogRoundTripTests {
    private func configuration(segmentSize: Int64 = 64 * 1024, batch: Int = 1024)
        -> LogConfiguration
    {
        var configuration = LogConfiguration()
        configuration.segmentSizeMax = segmentSize
        configuration.batchSizeTarget = batch
        configuration.indexIntervalBytes = 256
        return configuration
    }

    private func readAll(_ log: Log, from offset: UInt64 = 0) throws -> [(UInt64, [UInt8])] {
        var records: [(UInt64, [UInt8])] = []
        let cursor = try log.makeCursor(from: offset)
        while try cursor.next() {
            cursor.forEachRecord { offset, bytes in records.append((offset, Array(bytes))) }
        }
        return records
    }

    @Test func emptyFlushWritesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path)
        try log.flush()
        try log.sync()
        #expect(log.sizeBytes == 0)
        #expect(try readAll(log).isEmpty)
        try log.close()
    }

    @Test(arguments: [
        [1], [0], [1, 1, 1], [1000, 1000, 1000], [1023, 1, 1024, 1025],
        Array(repeating: 100, count: 500),
        [100_000], [5_000_000, 3], [3, 4_194_304, 4_194_305],
    ])
    func recordsRoundTripAcrossReopen(sizes: [Int]) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let written = sizes.enumerated().map { recordBytes($0.offset, size: $0.element) }
        let log = try Log.open(directory: directory.path, configuration: configuration())
        for (number, record) in written.enumerated() {
            #expect(try log.append(record, version: UInt64(number * 2)) == UInt64(number))
        }
        #expect(try readAll(log).map(\.1) == written)
        try log.close()
        let reopened = try Log.open(directory: directory.path, configuration: configuration())
        #expect(reopened.recovery.isClean)
        #expect(reopened.nextOffset == UInt64(written.count))
        let read = try readAll(reopened)
        #expect(read.map(\.0) == (0..<UInt64(written.count)).map { $0 })
        #expect(read.map(\.1) == written)
        try reopened.close()
    }

    @Test func segmentsRollAtTheConfiguredSizeAndReadsSeekIntoThem() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(
            directory: directory.path, configuration: configuration(segmentSize: 4096, batch: 300))
        let written = (0..<2000).map { recordBytes($0, size: 20 + $0 % 50) }
        for (number, record) in written.enumerated() {
            try log.append(record, version: UInt64(number))
        }
        try log.close()
        let reopened = try Log.open(
            directory: directory.path, configuration: configuration(segmentSize: 4096, batch: 300))
        #expect(reopened.segmentCount > 5)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.filter { $0.hasSuffix(".seg") }.count == reopened.segmentCount)
        #expect(files.filter { $0.hasSuffix(".idx") }.count == reopened.segmentCount - 1)
        for start in [0, 1, 299, 300, 1234, 1999, 2000] {
            let read = try readAll(reopened, from: UInt64(start))
            #expect(read.first?.0 == (start < 2000 ? UInt64(start) : nil))
            #expect(read.map(\.1) == Array(written[start...]))
        }
        try reopened.close()
    }

    @Test func activeSegmentRollsByAgeOnTheLogsClock() throws {
        var settings = configuration(batch: 1)
        settings.segmentAgeMaxNanoseconds = 60_000_000_000
        // Age is judged when a batch is written; compressing ahead writes a full batch at
        // the next one, so it is off here to pin which batch starts the new segment.
        settings.compressesFullBatchesAhead = false
        let clock = SimulatedClock()
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: settings, clock: clock)
        try log.append([1], version: 1)
        clock.advance(nanoseconds: 59_000_000_000)
        try log.append([2], version: 2)
        #expect(log.segmentCount == 1, "younger than the limit: no roll")
        clock.advance(nanoseconds: 1_000_000_000)
        try log.append([3], version: 3)
        #expect(log.segmentCount == 2, "a minute old: rolled before the next batch")
        try log.close()
        let names = try fileSystem.contentsOfDirectory("/log")
        #expect(names.contains(SegmentFileName.segment(baseOffset: 2)))
        #expect(names.contains(SegmentFileName.index(baseOffset: 0)))
    }

    @Test func readingFromAnOffsetSeeksInsteadOfScanning() throws {
        var settings = configuration(segmentSize: 8 * 1024 * 1024, batch: 1024)
        settings.indexIntervalBytes = 4096
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(directory: "/log", fileSystem: fileSystem, configuration: settings)
        for number in 0..<40_000 {
            try log.append(recordBytes(number, size: 100), version: UInt64(number))
        }
        try log.flush()
        #expect(log.sizeBytes > 1_000_000)
        let before = fileSystem.bytesRead
        let cursor = try log.makeCursor(from: 39_990)
        var read: [UInt64] = []
        while try cursor.next() { cursor.forEachRecord { offset, _ in read.append(offset) } }
        #expect(read == Array(39_990..<40_000))
        // One read-ahead window at most, from the index entry at or before the offset.
        let readBytes = fileSystem.bytesRead - before
        #expect(readBytes < 64 * 1024, "read \(readBytes) bytes of a \(log.sizeBytes)-byte segment")
        try log.close()
    }

    @Test func missingOrDamagedIndexIsRebuilt() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let settings = configuration(segmentSize: 4096, batch: 300)
        let log = try Log.open(directory: directory.path, configuration: settings)
        for number in 0..<600 { try log.append(recordBytes(number, size: 40), version: 1) }
        try log.close()
        let indexes = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".idx")
        }.sorted()
        try FileManager.default.removeItem(atPath: directory.appending(indexes[0]))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: directory.appending(indexes[1])))
        let reopened = try Log.open(directory: directory.path, configuration: settings)
        #expect(reopened.recovery.rebuiltIndexes == [indexes[0], indexes[1]])
        #expect(try readAll(reopened, from: 333).count == 600 - 333)
        try reopened.close()
    }

    @Test func oversizedRecordIsRejectedWithItsOffset() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path)
        try log.append([1], version: 0)
        let error = #expect(throws: StorageError.self) {
            try log.append([UInt8](repeating: 0, count: Limits.recordSizeMax + 1), version: 0)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.logOffset == 1)
        try log.close()
    }

    /// `append(count:describedBy:writtenBy:)` writes what one `append(_:version:)` per record
    /// writes: the same offsets and bytes, across batch and segment boundaries and a reopen.
    @Test(arguments: [[1], [0, 0], Array(repeating: 100, count: 500), [1023, 1, 1024, 1025]])
    func recordsAppendedInOneCallRoundTrip(sizes: [Int]) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let written = sizes.enumerated().map { recordBytes($0.offset, size: $0.element) }
        let log = try Log.open(directory: directory.path, configuration: configuration())
        try log.append([7], version: 1)
        let offsets = try log.append(
            count: written.count,
            describedBy: { index in (written[index].count, UInt64(index + 2)) },
            writtenBy: { index, pointer in
                written[index].withUnsafeBytes { $0.writeBytes(to: pointer) }
            })
        #expect(offsets == 1..<UInt64(written.count + 1))
        let none = try log.append(
            count: 0, describedBy: { _ in (0, 0) }, writtenBy: { _, _ in 0 })
        #expect(none == offsets.upperBound..<offsets.upperBound)
        try log.close()
        let reopened = try Log.open(directory: directory.path, configuration: configuration())
        let read = try readAll(reopened)
        #expect(read.map(\.0) == (0...UInt64(written.count)).map { $0 })
        #expect(read.map(\.1) == [[7]] + written)
        try reopened.close()
    }

    /// One call on a fresh log describes each record once, though it stops to begin the
    /// open's epoch and at every batch past its target (`AppendRunTests` has the batch too
    /// full for a record). The engine counts what it describes.
    @Test func eachRecordIsDescribedOnceInOneCall() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path, configuration: configuration())
        let sizes = (0..<40).map { 100 + 37 * $0 }
        var described = [Int](repeating: 0, count: sizes.count)
        let offsets = try log.append(
            count: sizes.count,
            describedBy: { index in
                described[index] += 1
                return (sizes[index], UInt64(index))
            },
            writtenBy: { index, pointer in
                pointer.initializeMemory(
                    as: UInt8.self, repeating: UInt8(index), count: sizes[index])
                return sizes[index]
            })
        #expect(offsets == 0..<UInt64(sizes.count))
        #expect(described == [Int](repeating: 1, count: sizes.count), "described twice or never")
        try log.close()
        let reopened = try Log.open(directory: directory.path, configuration: configuration())
        #expect(
            try readAll(reopened).map(\.1)
                == sizes.enumerated().map { [UInt8](repeating: UInt8($0), count: $1) })
        try reopened.close()
    }

    /// A record over the bound fails the call at its offset; the ones before it stay.
    @Test func anOversizedRecordInOneCallKeepsTheOnesBefore() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path)
        let error = #expect(throws: StorageError.self) {
            try log.append(
                count: 3,
                describedBy: { index in (index == 1 ? Limits.recordSizeMax + 1 : 2, 1) },
                writtenBy: { _, pointer in
                    pointer.initializeMemory(as: UInt8.self, repeating: 1, count: 2)
                    return 2
                })
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.logOffset == 1)
        #expect(log.nextOffset == 1)
        #expect(try readAll(log).map(\.1) == [[1, 1]])
        try log.close()
    }

    /// A size below zero is refused like one over the bound, before anything is written.
    @Test func aNegativeRecordSizeIsRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path)
        var written = false
        let error = #expect(throws: StorageError.self) {
            try log.append(
                count: 1, describedBy: { _ in (-1, 1) },
                writtenBy: { _, _ in
                    written = true
                    return -1
                })
        }
        #expect(error?.code == .invalidArgument)
        #expect(!written)
        #expect(log.nextOffset == 0)
        try log.close()
    }

    @Test func lz4CommandDecodesASegmentToTheRawRecords() throws {
        guard let lz4 = LZ4Command.located() else { return }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path, configuration: configuration(batch: 500))
        var expected: [UInt8] = []
        for number in 0..<300 {
            let record = Array("record number \(number) says hello".utf8)
            try log.append(record, version: 0)
        }
        let cursor = try log.makeCursor(from: 0)
        while try cursor.next() { expected += cursor.rawPayload }
        try log.close()
        let (status, output) = try LZ4Command.run(
            lz4, ["-dc", directory.appending(SegmentFileName.segment(baseOffset: 0))])
        #expect(status == 0)
        #expect(output == expected)
        #expect(String(decoding: output, as: UTF8.self).contains("record number 299 says hello"))
    }
}
