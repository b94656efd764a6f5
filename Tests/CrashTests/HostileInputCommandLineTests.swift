import Foundation
import Testing

// The command line fed what a careless operator or a hostile file holds: versions that
// would overflow the clock, values the log could not read back, integers a double would
// round. Each is refused with exit code 2 and the line or field named, and the directory
// keeps working: the next write succeeds and the log replays.
@Suite struct HostileInputCommandLineTests {
    private func initialized() async throws -> String? {
        guard LogbookExecutable.built() != nil else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-hostile-\(UUID().uuidString.prefix(8))"
        ).path
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        return directory
    }

    private func line(dbVersion: String = "1", value: String = #""X""#) -> String {
        #"{"recordId":"e/x","colName":"n","value":\#(value),"colVersion":1,"#
            + #""dbVersion":\#(dbVersion),"nodeId":9,"localDbVersion":1,"flags":0}"#
    }

    private func expectStillWorking(_ directory: String) async throws {
        #expect(try await LogbookExecutable.run(["put", directory, "e/after", "n=1"]).status == 0)
        let replay = try await LogbookExecutable.run(["replay", directory])
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(try await LogbookExecutable.run(["verify", directory]).status == 0)
    }

    @Test func putToADeletedRecordIsRefusedWithItsReason() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["put", directory, "e/gone", "n=1"]).status == 0)
        #expect(try await LogbookExecutable.run(["delete", directory, "e/gone"]).status == 0)
        let put = try await LogbookExecutable.run(["put", directory, "e/gone", "n=2"])
        #expect(put.status == 2, "\(put.standardError)")
        #expect(put.standardError.contains("e/gone") && put.standardError.contains("deleted"))
        #expect(put.standardError.contains("new id"), "\(put.standardError)")
        try await expectStillWorking(directory)
    }

    @Test func aReimportOntoADeletedRecordReportsItSkipped() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + ".json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let home =
            #"{"entities": [{"id": "lamp", "entity_type": "device", "name": "Lamp"}, "#
            + #"{"id": "home", "entity_type": "home", "name": "Home"}]}"#
        try Data(home.utf8).write(to: URL(fileURLWithPath: file))
        let first = try await LogbookExecutable.run(["import", "goodies", directory, file])
        #expect(first.status == 0 && !first.standardOutput.contains("skipped"))
        #expect(try await LogbookExecutable.run(["delete", directory, "entity/lamp"]).status == 0)
        let again = try await LogbookExecutable.run(["import", "goodies", directory, file])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(
            again.standardOutput.contains("skipped 1: the record was deleted"),
            "\(again.standardOutput)")
        try await expectStillWorking(directory)
    }

    @Test(arguments: ["18446744073709551615", "18446744073709551614", "9223372036854775808"])
    func appendRefusesAVersionOverTheLimit(dbVersion: String) async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = line() + "\n" + line(dbVersion: dbVersion) + "\n"
        let appended = try await LogbookExecutable.run(["append", directory, "-"], input: input)
        #expect(appended.status == 2, "\(appended.standardError)")
        #expect(appended.standardError.contains("stdin:2"), "\(appended.standardError)")
        #expect(appended.standardError.contains("ChangeLimits.versionMax"))
        #expect(appended.standardError.contains("nothing from stdin was merged"))
        try await expectStillWorking(directory)
    }

    @Test func appendRefusesAVersionItsClientsCouldNotWritePast() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = line() + "\n" + line(dbVersion: "9223372036854775807") + "\n"
        let appended = try await LogbookExecutable.run(["append", directory, "-"], input: input)
        #expect(appended.status == 2, "\(appended.standardError)")
        #expect(appended.standardError.contains("2^32 past its clock"), "\(appended.standardError)")
        #expect(appended.standardError.contains("nothing from stdin was merged"))
        try await expectStillWorking(directory)
    }

    @Test func appendRefusesALineOverItsBoundWithoutHoldingIt() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let long = line(value: "\"" + String(repeating: "v", count: 65 << 20) + "\"")
        let input = line() + "\n" + long + "\n"
        let appended = try await LogbookExecutable.run(["append", directory, "-"], input: input)
        #expect(appended.status == 2, "\(appended.standardError)")
        #expect(appended.standardError.contains("line 2"), "\(appended.standardError)")
        #expect(appended.standardError.contains("longer than 67108864 bytes"))
        try await expectStillWorking(directory)
    }

    @Test func appendRefusesAValueNestedTooDeep() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deep = String(repeating: "[", count: 66) + String(repeating: "]", count: 66)
        let appended = try await LogbookExecutable.run(
            ["append", directory, "-"], input: line(value: deep) + "\n")
        #expect(appended.status == 2, "\(appended.standardError)")
        #expect(appended.standardError.contains("ChangeLimits.valueDepthMax"))
        #expect(appended.standardError.contains("line 1"), "\(appended.standardError)")
        let putDeep = try await LogbookExecutable.run(["put", directory, "e/y", "n=\(deep)"])
        #expect(putDeep.status == 2, "\(putDeep.standardError)")
        try await expectStillWorking(directory)
    }

    @Test(arguments: [
        ("9223372036854775808", "9223372036854775808"),
        ("18446744073709551615", "18446744073709551615"), ("22.0", "22.0"), ("-0.0", "-0.0"),
        ("1e20", "1e+20"), ("[1,9223372036854775808]", "[1,9223372036854775808]"),
    ])
    func putKeepsEveryNumberACrdtLiteClientCanSend(text: String, exported: String) async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let put = try await LogbookExecutable.run(["put", directory, "e/x", "n=\(text)"])
        #expect(put.status == 0, "\(put.standardOutput) \(put.standardError)")
        let export = try await LogbookExecutable.run(["export", directory])
        #expect(
            export.standardOutput.contains(#""value":\#(exported)}"#), "\(export.standardOutput)")
        let tooLarge = try await LogbookExecutable.run(["put", directory, "e/x", "n=1e400"])
        #expect(tooLarge.status == 2, "\(tooLarge.standardError)")
        #expect(tooLarge.standardError.contains("beyond a 64-bit float's range"))
        try await expectStillWorking(directory)
    }

    @Test func theTokenComesFromAFileOrTheEnvironmentAndIsRequired() async throws {
        guard let directory = try await initialized() else { return }
        let tokenFile = directory + "-token"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: tokenFile)
        }
        // Nothing listens on port 1: a run that got past the token fails to connect (1).
        let sync = ["sync", directory, "--from", "http://127.0.0.1:1"]
        let none = try await LogbookExecutable.run(sync, environment: ["LOGBOOK_TOKEN": ""])
        #expect(none.status == 64, "\(none.standardError)")
        #expect(none.standardError.contains("token"))
        try Data("\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let empty = try await LogbookExecutable.run(sync + ["--token-file", tokenFile])
        #expect(empty.status == 64)
        #expect(empty.standardError.contains("holds no token"))
        try Data("  s3cret  \nignored\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let fromFile = try await LogbookExecutable.run(sync + ["--token-file", tokenFile])
        #expect(fromFile.status == 1, "\(fromFile.standardError)")
        let fromEnvironment = try await LogbookExecutable.run(
            sync, environment: ["LOGBOOK_TOKEN": "s3cret"])
        #expect(fromEnvironment.status == 1, "\(fromEnvironment.standardError)")
        let both = try await LogbookExecutable.run(
            sync + ["--token-file", tokenFile, "--token", "x"])
        #expect(both.status == 64)
    }

    @Test func importRefusesMissingAndMalformedFilesWithTheirPosition() async throws {
        guard let directory = try await initialized() else { return }
        let file = directory + "-rows.json"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: file)
        }
        for kind in ["bridges", "goodies"] {
            let missing = try await LogbookExecutable.run(["import", kind, directory, file])
            #expect(missing.status == 2, "\(missing.standardError)")
            #expect(missing.standardError.contains("does not exist"))
        }
        for (text, fragment) in [
            (#"[{"a": "1"}, {"b": "2""#, "byte 22"), (#"[{"a": "1"}, 7]"#, "row 1"),
            (#"{"a": 1}"#, "a JSON array"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let malformed = try await LogbookExecutable.run(["import", "bridges", directory, file])
            #expect(malformed.status == 2, "\(text): \(malformed.standardError)")
            #expect(malformed.standardError.contains(fragment), "\(malformed.standardError)")
            #expect(!malformed.standardError.contains("Usage"))
        }
        try await expectStillWorking(directory)
    }

    /// Ids and column names are kept in NFC (docs/decisions/0006): `put` and `delete` write
    /// the composed form of what they are given, so both spellings name one record; `append`
    /// refuses a change that is not in NFC, naming the line, and merges nothing.
    @Test func idsAndColumnNamesAreKeptInNFCThroughTheCommandLine() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (decomposedId, composedId) = ("e/cafe\u{0301}", "e/caf\u{00E9}")
        let (decomposedColumn, composedColumn) = ("nai\u{0308}ve", "na\u{00EF}ve")
        for (id, column, value) in [
            (decomposedId, decomposedColumn, "1"), (composedId, composedColumn, "2"),
            (decomposedId, "other", "3"),
        ] {
            let put = try await LogbookExecutable.run(["put", directory, id, "\(column)=\(value)"])
            #expect(put.status == 0, "\(put.standardError)")
        }
        let deleted = try await LogbookExecutable.run(["delete", directory, decomposedId, "other"])
        #expect(deleted.status == 0, "\(deleted.standardError)")
        let exported = try await LogbookExecutable.run(["export", directory])
        #expect(exported.status == 0, "\(exported.standardError)")
        let changes = try exported.standardOutput.split(separator: "\n").map { line in
            try #require(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(changes.count == 4)
        // Compared by their bytes: Swift's `==` would take either spelling for the other.
        let ids = Set(changes.compactMap { ($0["record_id"] as? String).map { Array($0.utf8) } })
        let columns = Set(
            changes.compactMap { ($0["col_name"] as? String).map { Array($0.utf8) } })
        #expect(ids == [Array(composedId.utf8)])
        #expect(columns == [Array(composedColumn.utf8), Array("other".utf8)])

        let input = line().replacingOccurrences(of: #""e/x""#, with: #""e/cafe\u0301""#)
        let appended = try await LogbookExecutable.run(
            ["append", directory, "-"], input: line() + "\n" + input + "\n")
        #expect(appended.status == 2, "\(appended.standardError)")
        #expect(appended.standardError.contains("stdin:2"), "\(appended.standardError)")
        #expect(appended.standardError.contains("not in Unicode NFC"))
        #expect(appended.standardError.contains("nothing from stdin was merged"))
        let after = try await LogbookExecutable.run(["export", directory])
        #expect(after.standardOutput == exported.standardOutput)
        try await expectStillWorking(directory)
    }

    @Test func namesFromTheDirectoryAndTheDataPrintEscaped() async throws {
        guard let directory = try await initialized() else { return }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hostile = "e/\u{1B}[2J\u{1B}]0;owned\u{07}"
        let put = try await LogbookExecutable.run(["put", directory, hostile, "n=1"])
        #expect(put.status == 0, "\(put.standardError)")
        let get = try await LogbookExecutable.run(["get", directory, hostile])
        #expect(get.standardOutput.hasPrefix(#"e/\u{1B}[2J\u{1B}]0;owned\u{7}  n = 1"#))
        // A file a reading command must refuse, named with an escape sequence.
        #expect(
            FileManager.default.createFile(atPath: directory + "/x\u{1B}[31m.swap", contents: nil))
        let export = try await LogbookExecutable.run(["export", directory])
        #expect(export.status != 0)
        #expect(export.standardError.contains(#"x\u{1B}[31m.swap"#), "\(export.standardError)")
        for output in [put, get, export] {
            let text = output.standardOutput + output.standardError
            #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(text)")
        }
    }
}
