import Logbook
import LogbookTesting
import Testing

// A real I/O failure still poisons writes (the CRDT may be ahead of the log), but reads
// keep answering from what was written before it: a full disk must not stop a node from
// serving its peers.
@Suite struct FailedWriteTests {
    @Test func readsKeepWorkingAfterAWriteFails() async throws {
        let fileSystem = SimulatedFileSystem()
        let logbook = try Logbook.open(
            directory: "/node", nodeId: 1,
            options: smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem))
        for number in 0..<20 {
            try await logbook.insertOrUpdate("e/\(number)", fields: [("n", .int(Int64(number)))])
        }
        let durable = logbook.durableOffset
        fileSystem.failOperations(after: 0)
        await #expect(throws: LogbookError.self) {
            try await logbook.insertOrUpdate("e/full", fields: [("n", 1)])
        }
        do {
            try await logbook.insertOrUpdate("e/later", fields: [("n", 1)])
            Issue.record("a write after the failure was accepted")
        } catch {
            #expect(error.code == .failed)
        }
        let shipped = try logbook.storedBatches(from: 0, maxBytes: 1 << 20)
        #expect(shipped.nextOffset == durable)
        var read = 0
        try logbook.forEachChange(since: 0) { _, _ in read += 1 }
        #expect(read == 20)
    }
}
