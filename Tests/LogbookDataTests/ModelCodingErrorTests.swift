import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import Testing

// A record the model cannot read, and a model that is not a record: each error names the
// record, the column (and the path inside it), what was expected and what is there.
@Suite struct ModelCodingErrorTests {
    private func decodingError(
        replacing column: String, with value: Value?
    ) async throws -> ModelError? {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        defer { try? logbook.close() }
        let message = Message.sample()
        try await logbook.save(message)
        if let value {
            try await logbook.insertOrUpdate(message.recordId, fields: [(column, value)])
        } else {
            try await logbook.deleteField(message.recordId, fieldName: column)
        }
        do {
            _ = try logbook.model(Message.self, id: message.id)
            return nil
        } catch {
            return error
        }
    }

    private func expectUndecodable(
        _ error: ModelError?, path: String, expected: String, found: String
    ) {
        guard
            case .undecodable(let recordId, let errorPath, let errorExpected, let errorFound)? =
                error
        else {
            Issue.record("expected an undecodable error, got \(String(describing: error))")
            return
        }
        #expect(recordId.hasPrefix("message/"))
        #expect(errorPath == path)
        #expect(errorExpected.contains(expected))
        #expect(errorFound == found)
    }

    @Test func aMistypedColumnNamesItsPathTypeAndValue() async throws {
        expectUndecodable(
            try await decodingError(replacing: "tokens", with: "many"), path: "tokens",
            expected: "integer", found: "the string \"many\"")
    }

    @Test func anIntegerThatDoesNotFitItsPropertyIsAnErrorNotATruncation() async throws {
        expectUndecodable(
            try await decodingError(replacing: "small", with: .int(300)), path: "small",
            expected: "fits Int8", found: "the integer 300")
        expectUndecodable(
            try await decodingError(replacing: "tokens", with: .double(1.5)), path: "tokens",
            expected: "fits Int", found: "the number 1.5")
    }

    @Test func aRequiredColumnThatIsAbsentFindsNothing() async throws {
        expectUndecodable(
            try await decodingError(replacing: "conversation", with: nil),
            path: "conversation", expected: "String", found: "nothing")
    }

    @Test func anErrorInsideANestedValueNamesTheWholePath() async throws {
        let calls: Value = .array([
            .object(["name": "search", "arguments": .object([:])]),
            .object(["name": .int(5), "arguments": .object([:])]),
        ])
        expectUndecodable(
            try await decodingError(replacing: "toolCalls", with: calls),
            path: "toolCalls[1].name", expected: "a string", found: "the integer 5")
    }

    @Test func aNonFiniteNumberIsRefusedBeforeAnythingIsWritten() async throws {
        try await withLogbook { logbook, _ in
            var message = Message.sample()
            message.score = .infinity
            await #expect {
                try await logbook.save([Message.sample(), message])
            } throws: { error in
                guard case ModelError.unencodable(message.recordId, "score", let reason) = error
                else { return false }
                return reason.contains("finite")
            }
            #expect(logbook.records().isEmpty)
        }
    }

    @Test func scalarsReadBackExactly() async throws {
        try await withLogbook { logbook, _ in
            var message = Message.sample()
            message.sentAt = Date(timeIntervalSinceReferenceDate: .pi * 1e8)
            message.score = .leastNonzeroMagnitude
            message.tokens = .min
            message.price = Decimal(string: "-12345678901234567890.0123456789")
            message.text = "é\u{301} 🏳️‍🌈 \u{0}"
            try await logbook.save(message)
            let read = try #require(try logbook.model(Message.self, id: message.id))
            #expect(
                read.sentAt.timeIntervalSinceReferenceDate.bitPattern
                    == message.sentAt.timeIntervalSinceReferenceDate.bitPattern)
            #expect(read == message)
        }
    }
}
