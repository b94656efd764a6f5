import LogbookStorage
import LogbookTesting
import Testing

// `LogConfiguration.zeroFillAheadBytes`: while a log is open its active segment runs ahead
// in zeros, so syncs overwrite blocks instead of growing the file. Closed, a segment holds
// exactly its batches, the same bytes as without zeros. After a crash the zeros are the
// segment's end: not reported, kept for the next batches, read around by a read-only open;
// anything else in them makes a torn tail, cut and reported as before.
@Suite struct ZeroFillAheadTests {
    private let activePath = "/log/" + "00000000000000000000.seg"

    private func settings(zeroFillAhead: Int?, segmentSize: Int64 = 1 << 20) -> LogConfiguration {
        var configuration = LogConfiguration()
        configuration.segmentSizeMax = segmentSize
        configuration.batchSizeTarget = 1024
        configuration.zeroFillAheadBytes = zeroFillAhead
        // One identity for the logs compared byte for byte: their chains start from one seed.
        configuration.identity = LogIdentity(high: 1, low: 2)
        return configuration
    }

    /// Appends records `range`, syncing after every 50.
    private func append(_ range: Range<Int>, to log: Log) throws {
        for number in range {
            try log.append(recordBytes(number, size: 40), version: 1)
            if number % 50 == 49 { try log.sync() }
        }
        try log.sync()
    }

    private func records(_ log: Log) throws -> [[UInt8]] {
        var records: [[UInt8]] = []
        let cursor = try log.makeCursor(from: 0)
        while try cursor.next() {
            cursor.forEachRecord { _, bytes in records.append(Array(bytes)) }
        }
        return records
    }

    /// A log of 300 synced records left by a crash with its zeros ahead, and its logical size.
    private func crashedLog() throws -> (SimulatedFileSystem, Int64) {
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024))
        try append(0..<300, to: log)
        let size = log.sizeBytes
        var random = SeededGenerator(seed: 1)
        fileSystem.crash(using: &random)  // everything was synced: nothing is lost
        return (fileSystem, size)
    }

    @Test func anOpenSegmentRunsAheadInZerosAndAClosedOneHoldsOnlyItsBatches() throws {
        let fileSystem = SimulatedFileSystem()
        let zeroFilled = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024))
        let plain = try Log.open(
            directory: "/plain", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: nil))
        try append(0..<300, to: zeroFilled)
        try append(0..<300, to: plain)
        let open = try #require(fileSystem.contents(of: activePath))
        let size = Int(zeroFilled.sizeBytes)
        #expect(open.count >= size + 32 * 1024, "\(open.count) bytes for \(size) of batches")
        #expect(open[size...].allSatisfy { $0 == 0 })
        try zeroFilled.close()
        try plain.close()
        #expect(fileSystem.contents(of: activePath)?.count == size)
        #expect(
            fileSystem.contents(of: activePath)
                == fileSystem.contents(of: "/plain/00000000000000000000.seg"))
    }

    @Test func zerosStayWithinTheSegmentSizeAndSealedSegmentsAreExact() throws {
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024, segmentSize: 4096))
        try append(0..<2000, to: log)
        let segments = try fileSystem.contentsOfDirectory("/log").filter { $0.hasSuffix(".seg") }
        #expect(segments.count > 3)
        var sealedBytes = 0
        for name in segments.dropLast() {
            sealedBytes += fileSystem.contents(of: "/log/" + name)?.count ?? 0
        }
        let activeBytes = try #require(
            segments.last.flatMap { fileSystem.contents(of: "/log/" + $0) })
        #expect(activeBytes.count <= 4096)
        #expect(Int64(sealedBytes) + Int64(activeBytes.count) > log.sizeBytes, "zeros ahead")
        try log.close()
        let reopened = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: settings(zeroFillAhead: 0))
        #expect(reopened.recovery.isClean)
        #expect(try records(reopened).count == 2000)
        try reopened.close()
    }

    @Test func aCrashLeavesZerosThatRecoveryReadsAsTheEndAndTheNextBatchesOverwrite() throws {
        let (fileSystem, size) = try crashedLog()
        let crashed = try #require(fileSystem.contents(of: activePath))
        #expect(Int64(crashed.count) > size, "the zeros survived the crash")
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024))
        #expect(log.recovery.description == "clean")
        #expect(try records(log).count == 300)
        #expect(fileSystem.contents(of: activePath)?.count == crashed.count, "zeros kept")
        try append(300..<400, to: log)
        try log.close()
        let reopened = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: settings(zeroFillAhead: nil))
        #expect(reopened.recovery.isClean)
        #expect(try records(reopened) == (0..<400).map { recordBytes($0, size: 40) })
        #expect(fileSystem.contents(of: activePath)?.count == Int(reopened.sizeBytes))
        try reopened.close()
    }

    @Test func aReadOnlyOpenReadsAroundTheZerosAndChangesNothing() throws {
        let (fileSystem, _) = try crashedLog()
        let before = fileSystem.contents(of: activePath)
        fileSystem.isReadOnlyMount = true
        let log = try Log.openReadOnly(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024))
        #expect(log.recovery.description == "clean")
        #expect(try records(log).count == 300)
        let active = try #require(try log.inspect().last)
        #expect(active.zeroBytesAfterBatches == Int64(before?.count ?? 0) - log.sizeBytes)
        #expect(active.zeroBytesAfterBatches > 0)
        try log.close()
        #expect(fileSystem.contents(of: activePath) == before)
    }

    /// Bytes other than zeros after the last batch, at `position` bytes past it: the whole
    /// tail is torn, cut at the last batch's end and reported.
    @Test(arguments: [0, 20_000])
    func anythingButZerosAfterTheLastBatchIsATornTail(position: Int64) throws {
        let (fileSystem, size) = try crashedLog()
        let fileBytes = Int64(fileSystem.contents(of: activePath)?.count ?? 0)
        let file = try fileSystem.open(activePath, mode: .readWrite)
        try file.write([0x5B, 0x2A, 0x4D, 0x18, 1, 2, 3], at: size + position)
        try file.sync()
        try file.close()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(zeroFillAhead: 64 * 1024))
        #expect(log.recovery.truncatedAtByte == size)
        #expect(log.recovery.truncatedBytes == fileBytes - size)
        #expect(try records(log).count == 300)
        try log.close()
    }

    /// Seeded power cuts at a random system call while records are appended and synced with
    /// zeros ahead: the log opens, holds a prefix of what was appended with every synced
    /// record, and takes and keeps more records after.
    @Test(arguments: Array(1...40) as [UInt64])
    func syncedRecordsSurviveAPowerCutAtAnyPoint(seed: UInt64) throws {
        let fileSystem = SimulatedFileSystem()
        var random = SeededGenerator(seed: seed)
        let configuration = settings(zeroFillAhead: 16 * 1024, segmentSize: 64 * 1024)
        var appended: [[UInt8]] = []
        var syncedCount = 0
        do {
            let log = try Log.open(
                directory: "/log", fileSystem: fileSystem, configuration: configuration)
            fileSystem.failOperations(after: Int.random(in: 0...300, using: &random))
            for number in 0..<3000 {
                let record = recordBytes(number, size: Int.random(in: 1...300, using: &random))
                try log.append(record, version: 1)
                appended.append(record)
                if Int.random(in: 0..<20, using: &random) == 0 {
                    try log.sync()
                    syncedCount = appended.count
                }
            }
        } catch {}
        fileSystem.crash(using: &random)
        let reopened = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: configuration)
        let recovered = try records(reopened)
        #expect(recovered.count >= syncedCount, "seed \(seed): a synced record was lost")
        #expect(recovered == Array(appended.prefix(recovered.count)), "seed \(seed): not a prefix")
        try append(0..<100, to: reopened)
        try reopened.close()
        let again = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: configuration)
        #expect(again.recovery.isClean, "seed \(seed): \(again.recovery)")
        #expect(try records(again).count == recovered.count + 100)
        try again.close()
    }

    @Test func anAmountOutsideTheLimitsIsRefused() throws {
        for bytes in [-1, Limits.zeroFillAheadBytesMax + 1] {
            #expect(throws: StorageError.self) {
                try settings(zeroFillAhead: bytes).validate()
            }
        }
        try settings(zeroFillAhead: Limits.zeroFillAheadBytesMax).validate()
    }
}
