import LogbookStorage
import LogbookTesting
import Testing

// A full batch compressed on the log's compressor thread is written, in order, at the next
// flush: the files are the ones writing each batch at once makes, every append is readable
// as soon as a cursor is made, and a failed write of such a batch is retried, not lost.
@Suite struct CompressAheadTests {
    private func configuration(ahead: Bool) -> LogConfiguration {
        var configuration = LogConfiguration()
        configuration.segmentSizeMax = 32 * 1024
        configuration.batchSizeTarget = 1024
        configuration.indexIntervalBytes = 256
        configuration.compressesFullBatchesAhead = ahead
        // One identity for the logs compared byte for byte: their chains start from one seed.
        configuration.identity = LogIdentity(high: 1, low: 2)
        return configuration
    }

    /// 100 bytes, 102 with its offset and length: a batch reaches its target (1,024 bytes)
    /// with its 11th record, so without compressing ahead at most 10 wait unwritten.
    private func record(_ number: Int) -> [UInt8] {
        (0..<100).map { UInt8(truncatingIfNeeded: number &* 31 &+ $0 / 7) }
    }

    /// The same appends, with and without compressing ahead: byte for byte the same segment
    /// files (batches, CRC chain, rolls), with a batch in flight at times in between.
    @Test func segmentsAreTheOnesWritingEachBatchAtOnceMakes() throws {
        var files: [[String: [UInt8]]] = []
        for ahead in [false, true] {
            let fileSystem = SimulatedFileSystem()
            let log = try Log.open(
                directory: "/log", fileSystem: fileSystem,
                configuration: configuration(ahead: ahead))
            var lagged = false
            for number in 0..<3_000 {
                try log.append(record(number), version: UInt64(number))
                log.checkInvariants()
                // A batch in flight and the pending one after it: two batches unwritten.
                if log.nextOffset - log.flushedOffset > 11 { lagged = true }
                if number % 700 == 699 { try log.sync() }
            }
            #expect(
                lagged == ahead, "a batch waited for the next flush only when compressing ahead")
            try log.close()
            var contents: [String: [UInt8]] = [:]
            for name in try fileSystem.contentsOfDirectory("/log") where name.hasSuffix(".seg") {
                contents[name] = fileSystem.contents(of: "/log/" + name)
            }
            #expect(contents.count > 3, "the appends span several segments")
            files.append(contents)
        }
        #expect(files[0] == files[1])
    }

    /// A cursor made right after an append reads it, though its batch's predecessor was
    /// still being compressed.
    @Test func aCursorReadsEveryAppendMadeBeforeIt() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(directory: directory.path, configuration: configuration(ahead: true))
        for number in 0..<500 {
            try log.append(record(number), version: UInt64(number))
            if number % 97 == 0 {
                let cursor = try log.makeCursor(from: 0)
                var read: [[UInt8]] = []
                while try cursor.next() {
                    cursor.forEachRecord { _, bytes in read.append(Array(bytes)) }
                }
                #expect(read == (0...number).map(record), "after \(number + 1) appends")
                log.checkInvariants()
            }
        }
        try log.close()
        let reopened = try Log.open(
            directory: directory.path, configuration: configuration(ahead: true))
        #expect(reopened.nextOffset == 500)
        try reopened.close()
    }

    /// A write of a compressed batch that fails (a full disk) leaves it in flight: the
    /// error reaches the appender, and once the disk takes writes again the next flush
    /// writes it, every record in order.
    @Test func aFailedWriteOfACompressedBatchIsRetried() throws {
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem, configuration: configuration(ahead: true))
        var appended = 0
        // Fill until a batch is in flight, then let the next write fail.
        while log.nextOffset - log.flushedOffset <= 12 {
            try log.append(record(appended), version: UInt64(appended))
            appended += 1
        }
        let flushedBefore = log.flushedOffset
        fileSystem.failOperations(after: 0)
        #expect(throws: StorageError.self) { try log.flush() }
        #expect(log.flushedOffset == flushedBefore, "nothing counted as written")
        fileSystem.failOperations(after: Int.max)
        try log.flush()
        #expect(log.flushedOffset == log.nextOffset)
        log.checkInvariants()
        let cursor = try log.makeCursor(from: 0)
        var read: [[UInt8]] = []
        while try cursor.next() { cursor.forEachRecord { _, bytes in read.append(Array(bytes)) } }
        #expect(read == (0..<appended).map(record))
        try log.close()
    }
}
