import Logbook
import LogbookStorage
import LogbookTesting
import Testing

// What `Logbook` writes ahead of its active segment when the options leave
// `log.zeroFillAheadBytes` nil: 1 MiB of zeros when every write waits for a sync, none when
// writes are buffered; an explicit amount is used as given. Closed, the segment is exact.
@Suite struct ZeroFillDefaultTests {
    /// The active segment's bytes on disk while open and after close, for `durability`.
    private func segmentBytes(_ durability: Durability, zeroFillAhead: Int? = nil) async throws
        -> (open: Int, logical: Int64, closed: Int)
    {
        let fileSystem = SimulatedFileSystem()
        var options = LogbookOptions()
        options.durability = durability
        options.fileSystem = fileSystem
        options.log.zeroFillAheadBytes = zeroFillAhead
        let logbook = try Logbook.open(directory: "/data", nodeId: 1, options: options)
        for number in 0..<20 {
            _ = try await logbook.insertOrUpdate("r\(number)", fields: [("v", .int(1))])
        }
        try logbook.sync()
        let path = "/data/00000000000000000000.seg"
        let open = fileSystem.contents(of: path)?.count ?? 0
        let logical = logbook.sizeBytes
        try logbook.close()
        return (open, logical, fileSystem.contents(of: path)?.count ?? 0)
    }

    @Test(arguments: [Durability.groupCommit, .fsyncEachAppend])
    func syncingEveryWriteRunsAMebibyteAhead(durability: Durability) async throws {
        let bytes = try await segmentBytes(durability)
        #expect(bytes.open >= 1 << 20, "\(bytes.open) bytes while open")
        #expect(bytes.closed == Int(bytes.logical))
    }

    @Test func bufferedWritesAndAnExplicitZeroWriteNone() async throws {
        for bytes in [
            try await segmentBytes(.buffered),
            try await segmentBytes(.groupCommit, zeroFillAhead: 0),
        ] {
            #expect(bytes.open == Int(bytes.logical))
        }
        let explicit = try await segmentBytes(.buffered, zeroFillAhead: 8192)
        #expect(explicit.open > Int(explicit.logical))
        #expect(explicit.open <= 8192 + Int(explicit.logical))
    }
}
