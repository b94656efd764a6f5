import Dispatch
import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// `Logbook.transaction(_:)`: a body reads its own writes; its writes are one batch of the log,
// so the active segment cut at every byte reopens to all of them or none; a record it read
// that changes before the commit runs the body again (two tasks incrementing one counter lose
// no increment; with one attempt, `.conflict` and nothing written); a write the CRDT refuses
// throws in the body and nothing of the transaction is written.
@Suite(.timeLimit(.minutes(1))) struct TransactionTests {
    @Test func aBodyReadsItsOwnWrites() async throws {
        try await withLogbook { logbook in
            try await logbook.insertOrUpdate("r/1", fields: [("a", 1), ("b", 2)])
            let seen = try await logbook.transaction { transaction in
                try transaction.insertOrUpdate("r/1", fields: [("a", 10)])
                try transaction.deleteField("r/1", fieldName: "b")
                try transaction.insertOrUpdate("r/2", fields: [("c", 3)])
                try transaction.deleteRecord("r/3")
                return (
                    transaction.fields("r/1"), transaction.fields("r/2"),
                    transaction.isDeleted("r/3"), transaction.fields("r/4")
                )
            }
            #expect(seen.0 == ["a": 10] && seen.1 == ["c": 3] && seen.2 && seen.3 == nil)
            #expect(logbook.getRecord("r/1")?.fields == ["a": 10])
            #expect(logbook.getRecord("r/2")?.fields == ["c": 3])
            #expect(logbook.isTombstoned("r/3"))
        }
    }

    @Test func aCrashKeepsAllOfATransactionOrNone() async throws {
        let source = TemporaryDirectory()
        defer { source.remove() }
        var options = smallLogOptions(batchSizeTarget: 256)
        options.log.segmentSizeMax = 1 << 20
        let logbook = try Logbook.open(directory: source.path, nodeId: 1, options: options)
        for number in 0..<10 {
            try await logbook.insertOrUpdate("before/\(number)", fields: [("n", 1)])
        }
        // 40 changes, about eight batches' worth at 256 bytes a batch.
        try await logbook.transaction { transaction in
            for number in 0..<20 {
                try transaction.insertOrUpdate(
                    "together/\(number)", fields: [("n", .int(Int64(number))), ("s", "text")])
            }
        }
        for number in 0..<10 {
            try await logbook.insertOrUpdate("after/\(number)", fields: [("n", 1)])
        }
        try logbook.close()
        let segment = SegmentFileName.segment(baseOffset: 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source.appending(segment)))
        var kept = Set<Int>()
        for cut in stride(from: 0, through: bytes.count, by: 3) {
            let copy = TemporaryDirectory("cut")
            defer { copy.remove() }
            for name in try FileManager.default.contentsOfDirectory(atPath: source.path)
            where !name.hasSuffix(".idx") {
                try FileManager.default.copyItem(
                    atPath: source.appending(name), toPath: copy.appending(name))
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy.appending(segment)))
            try handle.truncate(atOffset: UInt64(cut))
            try handle.close()
            let reopened = try Logbook.open(directory: copy.path, options: options)
            let together = (0..<20).filter { reopened.getRecord("together/\($0)") != nil }.count
            try reopened.close()
            #expect(together == 0 || together == 20, "cut at \(cut): \(together) of 20 kept")
            kept.insert(together)
        }
        #expect(kept == [0, 20], "cuts fell both before and after the transaction's batch")
    }

    @Test func concurrentIncrementsLoseNothing() async throws {
        try await withLogbook { logbook in
            try await logbook.insertOrUpdate("counter", fields: [("n", 0)])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<100 {
                            try await logbook.transaction(attemptsMax: 1000) { transaction in
                                guard case .int(let n) = transaction.fields("counter")?["n"]
                                else { throw LogbookError(.invalidChange, "no counter") }
                                try transaction.insertOrUpdate(
                                    "counter", fields: [("n", .int(n + 1))])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(logbook.getRecord("counter")?.field("n") == 200)
        }
    }

    @Test func aReadThatChangesBeforeTheCommitRunsTheBodyAgain() async throws {
        try await withLogbook { logbook in
            try await logbook.insertOrUpdate("r", fields: [("n", 1)])
            // The first run of the body lets another task change "r" after reading it.
            let read = DispatchSemaphore(value: 0)
            let changed = DispatchSemaphore(value: 0)
            let writer = Task {
                read.wait()
                try await logbook.insertOrUpdate("r", fields: [("n", 2)])
                changed.signal()
            }
            var runs = 0
            do {
                try await logbook.transaction(attemptsMax: 1) { transaction in
                    runs += 1
                    _ = transaction.fields("r")
                    read.signal()
                    changed.wait()
                    try transaction.insertOrUpdate("r", fields: [("n", 100), ("m", 1)])
                }
                Issue.record("a transaction whose read changed was committed")
            } catch let error as LogbookError {
                #expect(error.code == .conflict, "\(error)")
            }
            try await writer.value
            #expect(runs == 1 && logbook.getRecord("r")?.fields == ["n": 2])
            let seen = try await logbook.transaction { transaction in
                let n = transaction.fields("r")?["n"]
                try transaction.insertOrUpdate("r", fields: [("m", 1)])
                return n
            }
            #expect(seen == 2 && logbook.getRecord("r")?.fields == ["n": 2, "m": 1])
        }
    }

    @Test func aRefusedWriteThrowsInTheBodyAndNothingIsWritten() async throws {
        try await withLogbook { logbook in
            try await logbook.insertOrUpdate("gone", fields: [("n", 1)])
            try await logbook.deleteRecord("gone")
            let clock = logbook.clock()
            for deletedInside in [false, true] {
                do {
                    try await logbook.transaction { transaction in
                        try transaction.insertOrUpdate("kept", fields: [("n", 1)])
                        let target = deletedInside ? "fresh" : "gone"
                        if deletedInside { try transaction.deleteRecord(target) }
                        try transaction.insertOrUpdate(target, fields: [("n", 2)])
                    }
                    Issue.record("a write to a deleted record was committed")
                } catch let error as LogbookError {
                    #expect(error.code == .recordDeleted, "\(error)")
                    #expect(error.message.contains("new id"), "\(error)")
                }
            }
            #expect(logbook.getRecord("kept") == nil && !logbook.isTombstoned("fresh"))
            #expect(logbook.clock() == clock, "nothing was written")
        }
    }

    @Test func aColumnAtTheVersionLimitRefusesTheWholeTransaction() async throws {
        try await withLogbook { logbook in
            let top = Change<String, String, Value>(
                recordId: "r/x", colName: "n", value: 1, colVersion: ChangeLimits.versionMax,
                dbVersion: 7, nodeId: 9, localDbVersion: 1)
            _ = try await logbook.mergeLocated([top], from: .peer)
            let clock = logbook.clock()
            do {
                try await logbook.transaction { transaction in
                    try transaction.insertOrUpdate("r/before", fields: [("n", 1)])
                    try transaction.insertOrUpdate("r/x", fields: [("n", 2)])
                }
                Issue.record("a column at the version limit was written")
            } catch let error as LogbookError {
                #expect(error.code == .limitExceeded, "\(error)")
            }
            #expect(logbook.getRecord("r/before") == nil && logbook.clock() == clock)
        }
    }

    /// A Logbook in a fresh directory, closed after `body`.
    private func withLogbook(_ body: (Logbook) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        try await body(logbook)
        try logbook.close()
    }
}
