import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// A one-call write returns its changes in an array the engine keeps and writes the next
// write's changes over (`Logbook+ReusedChanges.swift`). Whatever a caller keeps must stay
// what it was returned: every answer of a long run of seeded writes, all kept, equals the
// answers of the same writes on a bare replica state; so do the answers writers keep while
// others write, under group commit.
@Suite struct ReturnedChangesTests {
    /// The changes of `write` as the one-call API answers: an array, or an optional change
    /// as an array of none or one.
    private static func answer(
        _ write: LocalWrite, on logbook: Logbook
    ) async throws -> [Change<String, String, Value>] {
        switch write {
        case .insertOrUpdate(let recordId, let fields):
            return try await logbook.insertOrUpdate(recordId, fields: fields)
        case .deleteField(let recordId, let fieldName):
            return try await logbook.deleteField(recordId, fieldName: fieldName).map { [$0] } ?? []
        case .deleteRecord(let recordId):
            return try await logbook.deleteRecord(recordId).map { [$0] } ?? []
        }
    }

    /// The same write on a bare replica state, by its plain calls.
    private static func answer(_ write: LocalWrite, on state: ReplicaState)
        -> [Change<String, String, Value>]
    {
        switch write {
        case .insertOrUpdate(let recordId, let fields):
            return state.insertOrUpdate(recordId, fields: fields)
        case .deleteField(let recordId, let fieldName):
            return state.deleteField(recordId, fieldName: fieldName).map { [$0] } ?? []
        case .deleteRecord(let recordId):
            return state.deleteRecord(recordId).map { [$0] } ?? []
        }
    }

    /// `writes` made one call each on a new Logbook, every answer kept, and on a bare
    /// replica state: the kept answers and the state's.
    private static func keptAndExpected(_ writes: [LocalWrite]) async throws -> (
        kept: [[Change<String, String, Value>]], expected: [[Change<String, String, Value>]]
    ) {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.buffered))
        let reference = ReplicaState(nodeId: 1)
        var kept: [[Change<String, String, Value>]] = []
        var expected: [[Change<String, String, Value>]] = []
        for write in writes {
            kept.append(try await answer(write, on: logbook))
            expected.append(answer(write, on: reference))
        }
        try logbook.close()
        return (kept, expected)
    }

    @Test func everyAnswerKeptStaysWhatItWas() async throws {
        let (kept, expected) = try await Self.keptAndExpected(
            LogbookBatchWriteTests.writes(count: 3000, seed: 11))
        let firstDifference = zip(kept, expected).enumerated().first {
            $0.element.0 != $0.element.1
        }
        #expect(
            firstDifference == nil, "first difference at write \(firstDifference?.offset ?? -1)")
        // The run had writes of every size the kept array goes through.
        #expect(Set(kept.map(\.count)) == [0, 1, 2, 3])
    }

    @Test func writesWiderThanTheKeptArrayAnswerAlike() async throws {
        // Twenty fields is more than the engine keeps an array for; the writes around it
        // start again from an array of their own.
        let wide = (0..<20).map { ("c\($0)", Value.int(Int64($0))) }
        let (kept, expected) = try await Self.keptAndExpected([
            .insertOrUpdate("r/1", fields: [("a", .int(1))]),
            .insertOrUpdate("r/1", fields: wide),
            .insertOrUpdate("r/2", fields: [("a", .int(2)), ("b", .int(3))]),
            .deleteField("r/1", fieldName: "c3"),
            .insertOrUpdate("r/2", fields: wide),
            .deleteRecord("r/2"),
            .insertOrUpdate("r/1", fields: [("a", .int(4))]),
        ])
        #expect(kept == expected)
        #expect(kept.map(\.count) == [1, 20, 2, 1, 20, 1, 1])
    }

    @Test func writersKeepTheirAnswersWhileOthersWrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        let answers = try await withThrowingTaskGroup(
            of: (Int, [[Change<String, String, Value>]]).self
        ) { group in
            for writer in 0..<8 {
                group.addTask {
                    var kept: [[Change<String, String, Value>]] = []
                    for index in 0..<200 {
                        kept.append(
                            try await logbook.insertOrUpdate(
                                "w\(writer)/\(index % 20)",
                                fields: (0...(index % 3)).map { ("c\($0)", .int(Int64(index))) }))
                    }
                    return (writer, kept)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 8)
        for (writer, kept) in answers {
            for (index, changes) in kept.enumerated() {
                #expect(changes.count == index % 3 + 1)
                #expect(changes.allSatisfy { $0.recordId == "w\(writer)/\(index % 20)" })
                #expect(changes.allSatisfy { $0.value == .int(Int64(index)) })
                #expect(changes.map(\.colName) == (0...(index % 3)).map { "c\($0)" })
            }
        }
        try logbook.close()
    }
}
