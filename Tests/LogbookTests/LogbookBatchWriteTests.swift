import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// `Logbook.write(_:)` makes each write exactly as its own call would. Method: the same
// seeded writes (inserts, updates, field and record deletions, writes to deleted records)
// made one call each on one Logbook and in batches of random sizes on another: the changes,
// digest and clock agree, and the batched log reopens to the same state. Refusals: a bad
// write refuses the whole call; a column at the version limit, or a write to a deleted
// record, ends it after the writes before it, which stay made and logged.
@Suite struct LogbookBatchWriteTests {
    /// Seeded writes over a few records and columns, so deletions meet live records.
    static func writes(count: Int, seed: UInt64) -> [LocalWrite] {
        var random = SeededGenerator(seed: seed)
        let columns = ["a", "b", "c", "d"]
        return (0..<count).map { _ in
            let recordId = "r/\(Int.random(in: 0..<200, using: &random))"
            let column = columns.randomElement(using: &random) ?? "a"
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<70:
                let fields = columns.shuffled(using: &random).prefix(
                    Int.random(in: 1...3, using: &random)
                )
                .map { ($0, Value.int(Int64.random(in: 0..<1000, using: &random))) }
                return .insertOrUpdate(recordId, fields: Array(fields))
            case 70..<97: return .deleteField(recordId, fieldName: column)
            default: return .deleteRecord(recordId)
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func batchesMakeWhatTheCallsOneByOneMake(seed: UInt64) async throws {
        let (single, batched) = (TemporaryDirectory(), TemporaryDirectory())
        defer {
            single.remove()
            batched.remove()
        }
        let writes = Self.writes(count: 3000, seed: seed)
        let oneByOne = try Logbook.open(
            directory: single.path, nodeId: 1, options: smallLogOptions(.buffered))
        var expected: [Change<String, String, Value>] = []
        // The writes crdt-lite's calls leave alone: an insertOrUpdate of a deleted record.
        var deletedWrites: [Int] = []
        for (index, write) in writes.enumerated() {
            switch write {
            case .insertOrUpdate(let recordId, let fields):
                let changes = try await oneByOne.insertOrUpdate(recordId, fields: fields)
                if changes.isEmpty { deletedWrites.append(index) }
                expected += changes
            case .deleteField(let recordId, let fieldName):
                if let change = try await oneByOne.deleteField(recordId, fieldName: fieldName) {
                    expected.append(change)
                }
            case .deleteRecord(let recordId):
                if let change = try await oneByOne.deleteRecord(recordId) {
                    expected.append(change)
                }
            }
        }
        let logbook = try Logbook.open(
            directory: batched.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        var random = SeededGenerator(seed: seed + 100)
        var made: [Change<String, String, Value>] = []
        var start = 0
        var refusedAsDeleted = 0
        while start < writes.count {
            var end = min(writes.count, start + Int.random(in: 1...200, using: &random))
            // A batch ends before a write to a deleted record, which is then refused alone and
            // made as its own call makes it (no change, a tick of the clock).
            let refused = deletedWrites.first { $0 >= start && $0 < end }
            if let refused { end = refused }
            made += try await logbook.write(Array(writes[start..<end]))
            start = end
            guard let refused, case .insertOrUpdate(let recordId, let fields) = writes[refused]
            else { continue }
            do throws(LogbookError) {
                try await logbook.write([writes[refused]])
                Issue.record("write \(refused), to deleted \(recordId), was made")
            } catch {
                #expect(error.code == .recordDeleted && error.changeIndex == 0, "\(error)")
            }
            #expect(try await logbook.insertOrUpdate(recordId, fields: fields).isEmpty)
            refusedAsDeleted += 1
            start = refused + 1
        }
        let firstDifference = zip(made, expected).enumerated().first {
            $0.element.0 != $0.element.1
        }
        #expect(
            made.count == expected.count, "\(made.count) changes made, \(expected.count) expected")
        #expect(firstDifference == nil, "first difference at \(firstDifference?.offset ?? -1)")
        #expect(expected.contains { $0.colName == nil }, "record deletions were made")
        #expect(refusedAsDeleted > 0, "writes to deleted records were refused, not dropped")
        #expect(expected.count > 2000, "\(expected.count) changes")
        #expect(logbook.stateDigest() == oneByOne.stateDigest())
        #expect(logbook.clock() == oneByOne.clock())
        let digest = logbook.stateDigest()
        try logbook.close()
        try oneByOne.close()
        let reopened = try Logbook.open(directory: batched.path, options: smallLogOptions())
        #expect(reopened.stateDigest() == digest)
        try reopened.close()
    }

    @Test func aBadWriteRefusesTheWholeCallNamingIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        try await logbook.insertOrUpdate("r/1", fields: [("a", 1)])
        let (digest, clock) = (logbook.stateDigest(), logbook.clock())
        let tooLong = String(repeating: "x", count: ChangeLimits.columnNameSizeMax + 1)
        do throws(LogbookError) {
            try await logbook.write([
                .insertOrUpdate("r/2", fields: [("a", 2)]), .deleteField("r/1", fieldName: "a"),
                .insertOrUpdate("r/3", fields: [(tooLong, .int(3))]),
            ])
            Issue.record("a column name over the limit was written")
        } catch {
            #expect(error.code == .invalidChange && error.changeIndex == 2, "\(error)")
            #expect(error.message.contains("ChangeLimits.columnNameSizeMax"), "\(error)")
        }
        #expect(logbook.stateDigest() == digest && logbook.clock() == clock)
        try logbook.close()
    }

    @Test func aColumnAtTheVersionLimitEndsTheCallAfterTheWritesBeforeIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        let top = Change<String, String, Value>(
            recordId: "r/x", colName: "n", value: 1, colVersion: ChangeLimits.versionMax,
            dbVersion: 7, nodeId: 9, localDbVersion: 1)
        // From a peer's log: a client's colVersion is held to the door (ClientVersionDoorTests).
        _ = try await logbook.mergeLocated([top], from: .peer)
        do throws(LogbookError) {
            try await logbook.write([
                .insertOrUpdate("r/before", fields: [("n", 1)]),
                .insertOrUpdate("r/x", fields: [("n", 2)]),
                .insertOrUpdate("r/after", fields: [("n", 3)]),
            ])
            Issue.record("a column at the version limit was written")
        } catch {
            #expect(error.code == .limitExceeded && error.changeIndex == 1, "\(error)")
        }
        #expect(logbook.getRecord("r/before")?.field("n") == 1)
        #expect(logbook.getRecord("r/after") == nil)
        #expect(logbook.getRecord("r/x")?.field("n") == 1)
        let digest = logbook.stateDigest()
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path, options: smallLogOptions())
        #expect(reopened.stateDigest() == digest, "the write before the refusal was logged")
        #expect(reopened.getRecord("r/before")?.field("n") == 1)
        try reopened.close()
    }

    @Test func aWriteToADeletedRecordEndsTheCallNamingIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        try await logbook.insertOrUpdate("r/gone", fields: [("n", 1)])
        try await logbook.deleteRecord("r/gone")
        do throws(LogbookError) {
            try await logbook.write([
                .insertOrUpdate("r/before", fields: [("n", 1)]),
                .deleteRecord("r/later"),
                .deleteField("r/gone", fieldName: "n"),  // already so: not refused
                .insertOrUpdate("r/later", fields: [("n", 2)]),
                .insertOrUpdate("r/after", fields: [("n", 3)]),
            ])
            Issue.record("a write to a record deleted earlier in the call was made")
        } catch {
            #expect(error.code == .recordDeleted && error.changeIndex == 3, "\(error)")
            #expect(error.message.contains("r/later") && error.message.contains("new id"))
        }
        #expect(logbook.getRecord("r/before")?.field("n") == 1)
        #expect(logbook.isTombstoned("r/later") && logbook.getRecord("r/after") == nil)
        do throws(LogbookError) {
            try await logbook.write([.insertOrUpdate("r/gone", fields: [("n", 4)])])
            Issue.record("a write to a deleted record was made")
        } catch {
            #expect(error.code == .recordDeleted && error.changeIndex == 0, "\(error)")
        }
        try logbook.close()
    }
}
