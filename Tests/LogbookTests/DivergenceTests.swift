import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A follower states the position it holds (offset and the epoch of the record before it);
// a log restored from an older copy no longer holds it and says so (`.diverged`) instead of
// answering "nothing new" while its new records sit at offsets the follower thinks it has.
@Suite struct DivergenceTests {
    /// A log with `count` durable changes, written by one open (one epoch).
    private func write(_ logbook: Logbook, _ count: Int, tag: String) async throws {
        for number in 0..<count {
            try await logbook.insertOrUpdate(
                "\(tag)/\(number)", fields: [("n", .int(Int64(number)))])
        }
        try logbook.sync()
    }

    @Test(arguments: [20, 200])
    func aLogRestoredFromAnOlderCopyRefusesTheFollowersPosition(writtenAfterRestore: Int)
        async throws
    {
        let directory = TemporaryDirectory()
        let backup = TemporaryDirectory("backup")
        defer {
            directory.remove()
            backup.remove()
        }
        var logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await write(logbook, 50, tag: "before")
        try logbook.close()
        try FileManager.default.removeItem(atPath: backup.path)
        try FileManager.default.copyItem(atPath: directory.path, toPath: backup.path)
        logbook = try Logbook.open(directory: directory.path)
        try await write(logbook, 50, tag: "lost")
        // The follower took everything.
        let taken = try logbook.storedBatches(from: 0, maxBytes: 1 << 30)
        let position = (offset: taken.nextOffset, epoch: taken.epochId)
        #expect(
            try logbook.storedBatches(
                from: position.offset, maxBytes: 1 << 20, epochId: position.epoch
            ).batchCount == 0)
        try logbook.close()

        // The node is restored from the copy and writes again at the reused offsets.
        try FileManager.default.removeItem(atPath: directory.path)
        try FileManager.default.copyItem(atPath: backup.path, toPath: directory.path)
        logbook = try Logbook.open(directory: directory.path)
        try await write(logbook, writtenAfterRestore, tag: "after")
        do {
            _ = try logbook.storedBatches(
                from: position.offset, maxBytes: 1 << 20, epochId: position.epoch)
            Issue.record("a position this log does not hold was accepted")
        } catch {
            #expect(error.code == .diverged, "\(error)")
        }
        // A position it does hold (before the copy's end, in the copy's epoch) still works.
        let early = try logbook.storedBatches(from: 0, maxBytes: 1)
        #expect(
            try logbook.storedBatches(
                from: early.nextOffset, maxBytes: 1 << 20, epochId: early.epochId
            ).batchCount > 0)
        try logbook.close()
    }

    @Test func anOffsetPastTheDurableEndIsRefusedEvenWithoutAnEpoch() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await write(logbook, 5, tag: "r")
        let end = logbook.durableOffset
        #expect(try logbook.storedBatches(from: end, maxBytes: 1 << 20).batchCount == 0)
        do {
            _ = try logbook.storedBatches(from: end + 1_000_000, maxBytes: 1 << 20)
            Issue.record("an offset past the end was answered")
        } catch {
            #expect(error.code == .diverged)
        }
        try logbook.close()
    }

    @Test func eachWritingOpenStartsAnEpochAndReopeningKeepsThePositions() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var positions: [(UInt64, UInt64)] = []
        for round in 0..<3 {
            let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
            try await write(logbook, 10, tag: "round\(round)")
            let shipped = try logbook.storedBatches(from: 0, maxBytes: 1 << 30)
            positions.append((shipped.nextOffset, shipped.epochId))
            try logbook.close()
        }
        #expect(Set(positions.map(\.1)).count == 3, "three opens, three epochs")
        let reader = try Logbook.open(directory: directory.path)
        for (offset, epoch) in positions {
            _ = try reader.storedBatches(from: offset, maxBytes: 1 << 20, epochId: epoch)
        }
        #expect(throws: LogbookError.self) {
            try reader.storedBatches(from: positions[0].0, maxBytes: 1, epochId: positions[1].1)
        }
        try reader.close()
    }
}
