import Foundation
import LogbookCRDT
import LogbookTesting
import Testing

// The command line keeps every value exactly: seeded boundary values (`BoundaryValueGenerator`)
// appended as crdt-lite JSON lines in either form come back from `export` in either form to
// the bit, and a directory built from that export has the same state digest.
@Suite struct ValueFidelityCommandLineTests {
    typealias PlainChange = Change<String, String, Value>

    @Test func appendedValuesComeBackExactlyFromExportAndRebuildTheSameState() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let (first, second) = (CommandLineTests.scratch(), CommandLineTests.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        var generator = BoundaryValueGenerator(seed: 7)
        let values = generator.values(randomCount: 120)
        let client = CRDT<String, String, Value>(nodeId: 9)
        var expected: [String: Value] = [:]
        for (index, value) in values.enumerated() {
            _ = client.insertOrUpdate("v/\(index)", fields: [("v", value)])
            expected["v/\(index)"] = value
        }
        var input = ""
        for (index, change) in client.getChangesSince(0).enumerated() {
            let format: ChangeJSONFormat = index.isMultiple(of: 2) ? .rust : .swift
            input += String(decoding: try ChangeJSON.encode(change, format: format), as: UTF8.self)
            input += "\n"
        }
        #expect(try await LogbookExecutable.run(["init", first, "--node", "1"]).status == 0)
        let appended = try await LogbookExecutable.run(["append", first, "-"], input: input)
        #expect(appended.status == 0, "\(appended.standardError)")
        var rustExport = ""
        for format in ChangeJSONFormat.allCases {
            let exported = try await LogbookExecutable.run(
                ["export", first, "--format", format.rawValue])
            #expect(exported.status == 0, "\(exported.standardError)")
            if format == .rust { rustExport = exported.standardOutput }
            let changes = try ChangeJSON.decodeLines(
                Data(exported.standardOutput.utf8), as: PlainChange.self)
            let mismatches = ValueFidelity.mismatches(changes, expected: expected)
            #expect(mismatches.isEmpty, "\(format): \(mismatches.prefix(5))")
        }
        #expect(try await LogbookExecutable.run(["init", second, "--node", "2"]).status == 0)
        let rebuilt = try await LogbookExecutable.run(["append", second, "-"], input: rustExport)
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        let digest = { (directory: String) in
            try await LogbookExecutable.run(["replay", directory]).standardOutput
                .split(separator: "\n").first { $0.hasPrefix("digest:") }
        }
        let firstDigest = try await digest(first)
        #expect(firstDigest != nil)
        #expect(try await digest(second) == firstDigest)
    }
}
