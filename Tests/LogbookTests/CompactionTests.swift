import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Compaction keeps exactly what the state needs: a compacted log replays to the same state
// digest, clock and sync output; offsets keep their numbers; repeating it converges to a
// no-op; a power cut at any system call of a compaction leaves a log that opens to the same
// state; and appends may run while it works.
@Suite struct CompactionTests {
    private func options(
        _ fileSystem: any FileSystem = PosixFileSystem(), durability: Durability = .buffered
    ) -> LogbookOptions {
        smallLogOptions(durability, fileSystem: fileSystem)
    }

    private func everything() -> CompactionOptions {
        var settings = CompactionOptions()
        settings.dirtyRatioMin = 0
        return settings
    }

    private func writeWorkload(_ logbook: Logbook, seed: UInt64, steps: Int = 600) async throws {
        var workload = Workload(seed: seed, recordCount: 12)
        for _ in 0..<steps { _ = try await workload.step(logbook) }
        try logbook.sync()
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func compactedLogReplaysToTheSameState(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: seed)
        let digest = logbook.stateDigest()
        let clock = logbook.clock()
        let sync = logbook.getChangesSince(0)
        var before: [UInt64: Change<String, String, Value>] = [:]
        try logbook.forEachChange(since: 0) { offset, change in before[offset] = change }
        let sizeBefore = logbook.sizeBytes

        let report = try logbook.compact(everything())
        #expect(report.didRewrite, "seed=\(seed)")
        #expect(report.recordsAfter < report.recordsBefore)
        #expect(logbook.sizeBytes < sizeBefore)
        #expect(logbook.stateDigest() == digest)
        var after: [UInt64: Change<String, String, Value>] = [:]
        try logbook.forEachChange(since: 0) { offset, change in after[offset] = change }
        #expect(after.count < before.count)
        for (offset, change) in after {
            #expect(before[offset] == change, "offset \(offset) kept its number and change")
        }
        try logbook.close()

        let reopened = try Logbook.open(directory: directory.path, options: options())
        #expect(reopened.stateDigest() == digest, "seed=\(seed)")
        #expect(reopened.clock() == clock, "seed=\(seed)")
        #expect(reopened.getChangesSince(0) == sync, "seed=\(seed)")
        try reopened.close()
    }

    /// Issue 60, class 4: a compaction that fails at any write (a full disk) leaves no
    /// partial `.cleaned` rewrite holding the space, and the log opens to the same state.
    @Test func aCompactionThatFailsAnywhereLeavesNoPartialRewrite() async throws {
        var failed = 0
        for failingAt in 0..<60 {
            let fileSystem = SimulatedFileSystem()
            let logbook = try Logbook.open(
                directory: "/data", nodeId: 1, options: options(fileSystem))
            try await writeWorkload(logbook, seed: 5)
            try logbook.sealActiveSegment()  // sealed segments, so the pass rewrites
            let digest = logbook.stateDigest()
            fileSystem.failOperations(after: failingAt)
            do { _ = try logbook.compact(everything()) } catch { failed += 1 }
            fileSystem.stopFailingOperations()
            let names = try fileSystem.contentsOfDirectory("/data")
            #expect(
                !names.contains { $0.hasSuffix(SegmentFileName.cleanedSuffix) },
                "failing at \(failingAt): \(names.sorted())")
            try? logbook.close()
            let reopened = try Logbook.open(directory: "/data", options: options(fileSystem))
            #expect(reopened.stateDigest() == digest, "failing at \(failingAt)")
            try reopened.close()
        }
        #expect(failed > 10, "the failures fell outside the compaction")
    }

    @Test func repeatedCompactionConvergesToANoOp() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: 9)
        let digest = logbook.stateDigest()
        var rounds = 0
        while try logbook.compact(everything()).didRewrite {
            rounds += 1
            #expect(logbook.stateDigest() == digest)
            #expect(rounds <= 3, "compaction must settle")
            if rounds > 3 { break }
        }
        #expect(rounds >= 1)
        let last = try logbook.compact(everything())
        #expect(!last.didRewrite)
        #expect(last.recordsAfter == last.recordsBefore)
        try logbook.close()
    }

    @Test func dryRunAndDirtyRatioThresholdWriteNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: 5)
        let size = logbook.sizeBytes
        var dryRun = everything()
        dryRun.dryRun = true
        let report = try logbook.compact(dryRun)
        #expect(!report.didRewrite)
        #expect(report.dirtyRatio > 0)
        #expect(report.bytesAfter < report.bytesBefore)
        var strict = CompactionOptions()
        strict.dirtyRatioMin = 1.01
        _ = try logbook.compact(strict)
        #expect(logbook.sizeBytes == size)
        try logbook.close()
    }

    @Test(arguments: Array(UInt64(1)...12))
    func aPowerCutAnywhereInACompactionLosesNothing(seed: UInt64) async throws {
        // Count the system calls of a full compaction on a twin, then cut the power at every
        // one of them in turn.
        let twin = SimulatedFileSystem()
        let reference = try Logbook.open(directory: "/data", nodeId: 1, options: options(twin))
        try await writeWorkload(reference, seed: seed, steps: 1500)
        let before = twin.operationCount
        _ = try reference.compact(everything())
        let callsInCompaction = twin.operationCount - before
        let digest = reference.stateDigest()
        try reference.close()
        guard callsInCompaction > 5 else {
            Issue.record("seed=\(seed): the compaction made only \(callsInCompaction) system calls")
            return
        }

        var random = SeededGenerator(seed: seed)
        for cut in 0..<callsInCompaction {
            let fileSystem = SimulatedFileSystem()
            let logbook = try Logbook.open(
                directory: "/data", nodeId: 1, options: options(fileSystem))
            try await writeWorkload(logbook, seed: seed, steps: 1500)
            #expect(logbook.stateDigest() == digest)
            fileSystem.failOperations(after: cut)
            _ = try? logbook.compact(everything())
            fileSystem.crash(using: &random)
            let reopened = try Logbook.open(directory: "/data", options: options(fileSystem))
            #expect(
                reopened.stateDigest() == digest, "seed=\(seed) cut=\(cut) of \(callsInCompaction)")
            let names = try fileSystem.contentsOfDirectory("/data")
            #expect(
                !names.contains {
                    $0.hasSuffix(".swap") || $0.hasSuffix(".cleaned") || $0.hasSuffix(".deleted")
                })
            try reopened.close()
        }
    }

    @Test func aStreamKeepsReadingAcrossACompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: 4, steps: 1500)
        var all: [UInt64: Change<String, String, Value>] = [:]
        try logbook.forEachChange(since: 0) { offset, change in all[offset] = change }
        var stream = try logbook.changes(since: 0)
        var read: [(UInt64, Change<String, String, Value>)] = []
        for _ in 0..<10 { if let next = try stream.next() { read.append(next) } }
        #expect(try logbook.compact(everything()).didRewrite)
        while let next = try stream.next() { read.append(next) }
        // Every change read is one that was logged, in rising offset order; the ones a
        // compaction dropped may be missing, everything after the compacted range is there.
        #expect(read.map(\.0) == read.map(\.0).sorted())
        #expect(Set(read.map(\.0)).count == read.count)
        for (offset, change) in read { #expect(all[offset] == change) }
        let lastSealed = logbook.segmentCount
        #expect(lastSealed >= 1)
        #expect(read.last?.0 == all.keys.max())
        try logbook.close()
    }

    @Test func appendsContinueWhileCompactionRuns() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: options(durability: .groupCommit))
        try await writeWorkload(logbook, seed: 3, steps: 800)
        async let compaction: CompactionReport = Task.detached { try logbook.compact(everything()) }
            .value
        for number in 0..<200 {
            try await logbook.insertOrUpdate("late/\(number)", fields: [("n", .int(Int64(number)))])
        }
        let report = try await compaction
        #expect(report.didRewrite)
        let digest = logbook.stateDigest()
        #expect(logbook.records().keys.filter { $0.hasPrefix("late/") }.count == 200)
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path, options: options())
        #expect(reopened.stateDigest() == digest)
        try reopened.close()
    }

    @Test func aThrottledCompactionReadsAndRewritesAtTheRate() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: 13)
        try logbook.sealActiveSegment()
        let digest = logbook.stateDigest()
        let size = logbook.sizeBytes
        var throttled = everything()
        throttled.bytesPerSecondMax = size * 4  // a quarter of a second per pass over the log
        let report = try logbook.compact(throttled)
        #expect(report.didRewrite)
        // Pass 1 reads the whole log; the rewrite reads the sealed segments again.
        let floor = Double(size) / Double(size * 4)
        #expect(report.findSeconds >= 0.9 * floor, "pass 1 took \(report.findSeconds) s")
        let sealedShare = Double(report.bytesBefore) / Double(size * 4)
        #expect(report.seconds >= 0.9 * (floor + sealedShare), "took \(report.seconds) s")
        #expect(logbook.stateDigest() == digest)
        try logbook.close()
    }

    @Test func concurrentWritesFromTwoNodesCompactToTheirCRDTWinners() async throws {
        // Two nodes write the same columns at the same column versions and exchange their
        // changes: each log then holds ties that dbVersion and node settle, which pass 1
        // resolves from the versions of recent changes it keeps (or by reading the winner
        // back from the log).
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        defer {
            first.remove()
            second.remove()
        }
        let one = try Logbook.open(directory: first.path, nodeId: 1, options: options())
        let two = try Logbook.open(directory: second.path, nodeId: 2, options: options())
        for round in 0..<40 {
            for record in 0..<6 {
                _ = try await one.insertOrUpdate("r\(record)", fields: [("c", .int(Int64(round)))])
                _ = try await two.insertOrUpdate("r\(record)", fields: [("c", .int(-Int64(round)))])
            }
            // Everything each round (merging a change twice changes nothing); both nodes then
            // start the next round from the same column versions and clock.
            let fromOne = one.getChangesSince(0)
            let fromTwo = two.getChangesSince(0)
            _ = try await two.merge(fromOne)
            _ = try await one.merge(fromTwo)
        }
        try one.sync()
        let digest = one.stateDigest()
        #expect(digest == two.stateDigest(), "the nodes converged")
        let report = try one.compact(everything())
        #expect(report.didRewrite)
        #expect(report.tiesSettledInMemory > 0, "the log holds ties, logged close together")
        #expect(one.stateDigest() == digest)
        try one.close()
        try two.close()
        let reopened = try Logbook.open(directory: first.path, options: options())
        #expect(reopened.stateDigest() == digest)
        try reopened.close()
    }

    @Test(arguments: [1, 3])
    func anyNumberOfThreadsKeepsTheSameRecords(threads: Int) async throws {
        let directory = TemporaryDirectory()
        let copy = TemporaryDirectory()
        defer {
            directory.remove()
            copy.remove()
        }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options())
        try await writeWorkload(logbook, seed: 21, steps: 1_500)
        try logbook.close()
        try FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: directory.path, toPath: copy.path)
        var kept: [[UInt64]] = []
        var reports: [CompactionReport] = []
        for (path, threadCount) in [(directory.path, 2), (copy.path, threads)] {
            let node = try Logbook.open(directory: path, options: options())
            var settings = everything()
            settings.threads = threadCount
            reports.append(try node.compact(settings))
            var offsets: [UInt64] = []
            try node.forEachChange(since: 0) { offset, _ in offsets.append(offset) }
            kept.append(offsets)
            try node.close()
        }
        #expect(kept[0] == kept[1], "threads: 2 and \(threads)")
        #expect(reports[0].recordsAfter == reports[1].recordsAfter)
        #expect(reports[0].liveKeys == reports[1].liveKeys)
        #expect(reports[0].tombstones == reports[1].tombstones)
    }
}
