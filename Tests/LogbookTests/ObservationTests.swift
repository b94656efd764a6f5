import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// `Logbook.committedChanges()`: every commit (single writes, batches, transactions, accepted
// merges) arrives once, in log order, after it holds (under group commit: at or below the
// durable offset when received); an observer that reads and writes the Logbook from its loop
// does not deadlock, and what it writes arrives in turn; closing ends the stream.
@Suite(.timeLimit(.minutes(1))) struct ObservationTests {
    @Test func everyCommitArrivesInLogOrderOnceItHolds() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        let stream = logbook.committedChanges()
        let peer = CRDT<String, String, Value>(nodeId: 2)
        let remote = peer.insertOrUpdate("remote", fields: [("n", 1)])
        try await logbook.insertOrUpdate("one", fields: [("n", 1)])
        try await logbook.write([.insertOrUpdate("two", fields: [("n", 2)]), .deleteRecord("one")])
        try await logbook.transaction { try $0.insertOrUpdate("three", fields: [("n", 3)]) }
        try await logbook.merge(remote)
        try await logbook.merge(remote)  // nothing accepted: no commit
        try await logbook.insertOrUpdate("last", fields: [("n", 4)])
        var received: [[String]] = []
        var previousEnd: UInt64 = 0
        for await commit in stream {
            #expect(commit.offsets.lowerBound >= previousEnd, "in log order")
            #expect(commit.offsets.upperBound <= logbook.durableOffset, "delivered once synced")
            previousEnd = commit.offsets.upperBound
            received.append(commit.recordIds)
            if commit.recordIds == ["last"] { break }
        }
        #expect(received == [["one"], ["two", "one"], ["three"], ["remote"], ["last"]])
        try logbook.close()
    }

    @Test func anObserverMayReadAndWriteTheLogbook() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        let stream = logbook.committedChanges()
        let auditor = Task {
            var audited = 0
            for await commit in stream where commit.touches(prefix: "task/") {
                for recordId in commit.recordIds where recordId.hasPrefix("task/") {
                    let title = logbook.getRecord(recordId)?.field("title") ?? .null
                    try await logbook.transaction { transaction in
                        try transaction.insertOrUpdate(
                            "audit/" + recordId, fields: [("title", title)])
                    }
                    audited += 1
                }
                if audited == 100 { return audited }
            }
            return audited
        }
        for number in 0..<100 {
            try await logbook.insertOrUpdate(
                "task/\(number)", fields: [("title", .string("do \(number)"))])
        }
        let audited = try await auditor.value
        #expect(audited == 100)
        #expect(logbook.getRecord("audit/task/99")?.field("title") == "do 99")
        try logbook.close()
    }

    @Test func closingEndsTheStream() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.buffered))
        let stream = logbook.committedChanges()
        try await logbook.insertOrUpdate("a", fields: [("n", 1)])
        try logbook.close()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1, "the commit before the close, then the end")
        var after = 0
        for await _ in logbook.committedChanges() { after += 1 }
        #expect(after == 0, "a stream asked for after the close ends at once")
    }
}
