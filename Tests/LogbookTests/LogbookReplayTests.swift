import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A Logbook reopened from disk is the replica that wrote it: same state digest, clock,
// tombstones and sync output, for seeded random workloads with every kind of deletion, in
// every durability mode. Also: node ids are enforced and the change stream reads back.
@Suite struct LogbookReplayTests {
    private func options(_ durability: Durability, fileSystem: any FileSystem = PosixFileSystem())
        -> LogbookOptions
    {
        smallLogOptions(durability, fileSystem: fileSystem, batchSizeTarget: 1024)
    }

    @Test(arguments: Durability.allCases, [UInt64(1), 2, 3])
    func reopenedLogbookEqualsTheOneThatWroteIt(durability: Durability, seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 7, options: options(durability))
        var workload = Workload(seed: seed)
        for _ in 0..<400 { _ = try await workload.step(logbook) }
        let digest = logbook.stateDigest()
        let clock = logbook.clock()
        let sync = logbook.getChangesSince(0)
        let tombstones = logbook.tombstoneCount()
        try logbook.close()

        let reopened = try Logbook.open(directory: directory.path, options: options(durability))
        #expect(reopened.nodeId == 7)
        #expect(reopened.recovery.isClean)
        #expect(reopened.stateDigest() == digest, "seed=\(seed)")
        #expect(reopened.clock() == clock, "seed=\(seed)")
        #expect(reopened.getChangesSince(0) == sync, "seed=\(seed)")
        #expect(reopened.tombstoneCount() == tombstones)
        #expect(reopened.segmentCount > 1, "the workload spans several segments")
        try reopened.close()
    }

    @Test func concurrentWritersAreGroupCommittedAndAllSurvive() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: options(.groupCommit))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    for step in 0..<50 {
                        try await logbook.insertOrUpdate(
                            "w\(writer)/\(step)", fields: [("n", .int(Int64(step)))])
                    }
                }
            }
            try await group.waitForAll()
        }
        let digest = logbook.stateDigest()
        #expect(logbook.records().count == 800)
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path)
        #expect(reopened.stateDigest() == digest)
        #expect(reopened.records().count == 800)
        try reopened.close()
    }

    @Test func droppingAGroupCommitLogbookWithoutCloseStopsItsCommitter() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let logbook = try Logbook.open(
                directory: directory.path, nodeId: 1, options: options(.groupCommit))
            try await logbook.insertOrUpdate("r", fields: [("a", 1)])
        }
        // The acknowledged write is durable, and the directory reopens cleanly.
        let reopened = try Logbook.open(directory: directory.path, options: options(.groupCommit))
        #expect(reopened.getRecord("r")?.field("a") == 1)
        try reopened.close()
    }

    @Test func forEachChangeStreamsFromAnOffset() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: options(.buffered))
        var written: [Change<String, String, Value>] = []
        for number in 0..<100 {
            written += try await logbook.insertOrUpdate(
                "r\(number)", fields: [("a", .int(Int64(number))), ("b", "x")])
        }
        // Offset 0 holds the open's epoch mark; change N is at offset N + 1.
        var read: [(UInt64, Change<String, String, Value>)] = []
        try logbook.forEachChange(since: 51) { offset, change in read.append((offset, change)) }
        #expect(read.map(\.1) == Array(written[50...]))
        #expect(read.first?.0 == 51)
        var stream = try logbook.changes(since: 200)
        #expect(try stream.next()?.change == written[199])
        #expect(try stream.next() == nil)
        try logbook.close()
    }

    @Test func nodeIdIsRecordedAndEnforced() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: LogbookError.self) {
            _ = try Logbook.open(directory: directory.appending("new"))
        }
        #expect(error?.code == .nodeMismatch)
        let logbook = try Logbook.open(directory: directory.path, nodeId: 5)
        try logbook.close()
        let mismatch = #expect(throws: LogbookError.self) {
            _ = try Logbook.open(directory: directory.path, nodeId: 6)
        }
        #expect(mismatch?.code == .nodeMismatch)
        #expect(mismatch?.description.contains("node 5") == true)
    }

    @Test func clockAdvancesThatNoChangeCarriesSurviveReplay() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: options(.buffered))
        try await logbook.deleteRecord("gone")
        _ = try await logbook.insertOrUpdate("gone", fields: [("a", 1)])  // ticks, writes nothing
        let remote = Change<String, String, Value>(
            recordId: "gone", colName: "a", value: 1, colVersion: 1, dbVersion: 500, nodeId: 2,
            localDbVersion: 500)
        #expect(try await logbook.merge([remote]).isEmpty)  // rejected, but the clock moved
        let clock = logbook.clock()
        #expect(clock.currentTime() == 501)
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path)
        #expect(reopened.clock() == clock)
        try reopened.close()
    }

    @Test func failedWritePoisonsTheInstanceAndReopenRecovers() async throws {
        let fileSystem = SimulatedFileSystem()
        let logbook = try Logbook.open(
            directory: "/data", nodeId: 1,
            options: options(.fsyncEachAppend, fileSystem: fileSystem))
        try await logbook.insertOrUpdate("kept", fields: [("a", 1)])
        fileSystem.failOperations(after: 0)
        await #expect(throws: LogbookError.self) {
            try await logbook.insertOrUpdate("lost", fields: [("a", 1)])
        }
        let second = await #expect(throws: LogbookError.self) {
            try await logbook.insertOrUpdate("x", fields: [("a", 1)])
        }
        #expect(second?.code == .failed)
        fileSystem.failOperations(after: 1_000_000)
        var random = SeededGenerator(seed: 1)
        fileSystem.crash(using: &random)
        let reopened = try Logbook.open(
            directory: "/data", options: options(.fsyncEachAppend, fileSystem: fileSystem))
        #expect(reopened.getRecord("kept") != nil)
        #expect(reopened.getRecord("x") == nil)
        try reopened.close()
    }
}
