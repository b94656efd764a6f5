import LogbookStorage
import LogbookTesting
import Testing

// `LogConfiguration.writebackAfterBytes`: once that many bytes of the active segment were
// written since its last sync or write-back, the log asks for their write-back to start, so
// the sync that seals the segment finds little left to write. The requests cover each byte
// written once, in order, never past what was written; a sync moves where the next starts;
// a new segment starts its own from its beginning; 0 asks for none.
@Suite struct WritebackTests {
    private let firstSegment = "/log/" + "00000000000000000000.seg"

    private func settings(writebackAfter: Int, segmentSize: Int64 = 1 << 20) -> LogConfiguration {
        var configuration = LogConfiguration()
        configuration.segmentSizeMax = segmentSize
        configuration.batchSizeTarget = 1024
        configuration.writebackAfterBytes = writebackAfter
        return configuration
    }

    /// A new log in "/log" on a simulated file system of its own.
    private func freshLog(writebackAfter: Int, segmentSize: Int64 = 1 << 20) throws -> (
        SimulatedFileSystem, Log
    ) {
        let fileSystem = SimulatedFileSystem()
        let log = try Log.open(
            directory: "/log", fileSystem: fileSystem,
            configuration: settings(writebackAfter: writebackAfter, segmentSize: segmentSize))
        return (fileSystem, log)
    }

    private func append(_ range: Range<Int>, to log: Log) throws {
        for number in range { try log.append(recordBytes(number, size: 40), version: 1) }
    }

    /// The requests for `path`, checked to follow each other from `start` without a gap or
    /// an overlap, each at least `minimum` bytes; returns where the last one ends.
    private func checkedEnd(
        of requests: [SimulatedFileSystem.WritebackRequest], from start: Int64, minimum: Int64
    ) -> Int64 {
        var end = start
        for request in requests {
            #expect(request.offset == end, "write-back from \(request.offset), expected \(end)")
            #expect(request.count >= minimum, "write-back of \(request.count) bytes")
            end = request.offset + request.count
        }
        return end
    }

    @Test func writeBackCoversTheWrittenBytesOnceInOrder() throws {
        let (fileSystem, log) = try freshLog(writebackAfter: 4096)
        try append(0..<3000, to: log)
        try log.flush()
        let requests = fileSystem.writebackRequests
        #expect(requests.count >= 5)
        #expect(requests.allSatisfy { $0.path == firstSegment })
        let end = checkedEnd(of: requests, from: 0, minimum: 4096)
        #expect(end <= log.sizeBytes)
        #expect(log.sizeBytes - end < 4096, "\(log.sizeBytes - end) bytes left without one")
        try log.close()
    }

    /// Writes enough for write-backs, with bytes after the last one, has `sync` make them
    /// durable, writes more: the write-backs after it start where the sync left off.
    private func checkWriteBackResumesAfterTheSync(_ sync: (Log) throws -> Void) throws {
        let (fileSystem, log) = try freshLog(writebackAfter: 4096)
        try append(0..<1100, to: log)
        try log.flush()
        let lastEnd = fileSystem.writebackRequests.last.map { $0.offset + $0.count }
        try #require(lastEnd != nil && lastEnd != log.sizeBytes)
        try sync(log)
        let synced = log.sizeBytes
        let before = fileSystem.writebackRequests.count
        try append(1100..<3000, to: log)
        try log.flush()
        let after = Array(fileSystem.writebackRequests[before...])
        #expect(!after.isEmpty)
        _ = checkedEnd(of: after, from: synced, minimum: 4096)
        try log.close()
    }

    @Test func aSyncCoversWhatWasWrittenSoTheNextWriteBackStartsAfterIt() throws {
        try checkWriteBackResumesAfterTheSync { try $0.sync() }
    }

    @Test func aGroupCommitsSyncMovesTheNextWriteBackAfterWhatItCovered() throws {
        // As the committer does: its own handle syncs, then the log hears of it.
        try checkWriteBackResumesAfterTheSync { log in
            let (file, offset) = try log.flushForSync()
            try file.syncHandle().sync()
            log.noteDurable(through: offset)
        }
    }

    @Test func eachNewSegmentStartsItsWriteBacksAtItsBeginning() throws {
        let (fileSystem, log) = try freshLog(writebackAfter: 4096, segmentSize: 24 * 1024)
        try append(0..<6000, to: log)
        try log.flush()
        #expect(log.segmentCount >= 3)
        let requests = fileSystem.writebackRequests
        let paths = requests.map(\.path).reduce(into: [String]()) { paths, path in
            if paths.last != path { paths.append(path) }
        }
        #expect(paths.count >= 3)
        #expect(Set(paths).count == paths.count, "a segment's requests interleave another's")
        for path in paths {
            let end = checkedEnd(
                of: requests.filter { $0.path == path }, from: 0, minimum: 4096)
            #expect(end <= Int64(fileSystem.contents(of: path)?.count ?? 0))
        }
        try log.close()
    }

    @Test func aRewriteStartsWriteBackOfItsOutputAsItGrows() throws {
        let configuration = settings(writebackAfter: 4096, segmentSize: 24 * 1024)
        let (fileSystem, log) = try freshLog(writebackAfter: 4096, segmentSize: 24 * 1024)
        try append(0..<6000, to: log)
        try log.sync()
        let run = log.sealedRun(0..<(log.segmentCount - 1))
        let before = fileSystem.writebackRequests.count
        let rewritten = try SegmentRewriter.rewrite(
            run, directory: "/log", fileSystem: fileSystem, configuration: configuration
        ) { _, _ in .keep(version: 1) }
        let output = "/log/" + SegmentFileName.cleaned(baseOffset: 0, endOffset: run.endOffset)
        let requests = Array(fileSystem.writebackRequests[before...])
        #expect(requests.count >= 3)
        #expect(requests.allSatisfy { $0.path == output })
        let end = checkedEnd(of: requests, from: 0, minimum: 4096)
        #expect(end <= rewritten.index.segmentSize)
        #expect(rewritten.index.segmentSize - end < 4096)
        try log.close()
    }

    @Test func zeroStartsNoWriteBack() throws {
        let (fileSystem, log) = try freshLog(writebackAfter: 0)
        try append(0..<3000, to: log)
        try log.close()
        #expect(fileSystem.writebackRequests.isEmpty)
    }

    @Test(arguments: [-1, Int(Limits.segmentSizeMax) + 1])
    func aSettingOutsideItsRangeIsRefusedByName(_ bytes: Int) throws {
        var configuration = LogConfiguration()
        configuration.writebackAfterBytes = bytes
        let error = #expect(throws: StorageError.self) { try configuration.validate() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("writebackAfterBytes \(bytes)") == true)
    }

    @Test func aLogOnDiskKeepsEveryRecordThroughItsWriteBacks() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = try Log.open(
            directory: directory.path, fileSystem: PosixFileSystem(),
            configuration: settings(writebackAfter: 4096, segmentSize: 24 * 1024))
        try append(0..<6000, to: log)
        try log.close()
        let reopened = try Log.open(directory: directory.path, fileSystem: PosixFileSystem())
        defer { try? reopened.close() }
        var number = 0
        let cursor = try reopened.makeCursor(from: 0)
        while try cursor.next() {
            cursor.forEachRecord { _, bytes in
                #expect(Array(bytes) == recordBytes(number, size: 40))
                number += 1
            }
        }
        #expect(number == 6000)
    }
}
