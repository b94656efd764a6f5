import Foundation
import Testing

// `--json` on every command that reports: one JSON document naming the command and the
// directory, with the keys docs/cli.md lists and the same facts as the text.
@Suite struct JSONReportTests {
    /// Runs a command with --json; its document must name the command and the directory
    /// (the argument after the command, or after the kind for import).
    private func document(_ arguments: [String]) async throws -> [String: Any] {
        let output = try await LogbookExecutable.run(arguments + ["--json"])
        #expect(output.status == 0, "\(arguments): \(output.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8))
        let document = try #require(object as? [String: Any], "\(output.standardOutput)")
        #expect(document["command"] as? String == arguments.first)
        let directory = arguments[arguments.first == "import" ? 2 : 1]
        #expect(document["directory"] as? String == directory)
        return document
    }

    @Test func everyReportingCommandPrintsOneDocument() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-json-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, second) = (directory + "/a", directory + "/b")
        for (node, id) in [(first, "1"), (second, "2")] {
            #expect(try await LogbookExecutable.run(["init", node, "--node", id]).status == 0)
        }
        for lamp in ["a", "b", "c"] {
            #expect(
                try await LogbookExecutable.run(["put", first, "lamp/\(lamp)", "on=true"]).status
                    == 0)
        }
        #expect(try await LogbookExecutable.run(["delete", first, "lamp/b"]).status == 0)
        let exported = try await LogbookExecutable.run(["export", first])
        let changes = exported.standardOutput.split(separator: "\n").count
        let appendOutput = try await LogbookExecutable.run(
            ["append", second, "-", "--json"], input: exported.standardOutput)
        let appended = try #require(
            try JSONSerialization.jsonObject(with: Data(appendOutput.standardOutput.utf8))
                as? [String: Any])
        #expect(appended["command"] as? String == "append" && appended["file"] as? String == "-")
        #expect(appended["read"] as? Int == changes && appended["accepted"] as? Int == changes)
        #expect(appended["rejected"] as? Int == 0 && appended["error"] == nil)

        let replays = [
            try await document(["replay", first]), try await document(["replay", second]),
        ]
        #expect(replays[0]["digest"] as? String != nil)
        #expect(replays[0]["digest"] as? String == replays[1]["digest"] as? String)
        #expect(replays[1]["changes"] as? Int == changes && replays[1]["liveRecords"] as? Int == 2)

        // A snapshot, then the replay through it: the same state, nothing replayed after it.
        let snapshotted = try await document(["snapshot", second])
        let snapshot = try #require(snapshotted["snapshot"] as? [String: Any])
        #expect(snapshot["written"] as? Bool == true && snapshot["entries"] as? Int == 3)
        #expect(snapshot["digest"] as? String == replays[1]["digest"] as? String)
        #expect(snapshotted["replayedChanges"] as? Int == changes)
        let again = try await document(["snapshot", second])
        #expect((again["snapshot"] as? [String: Any])?["written"] as? Bool == false)
        #expect(
            (again["loaded"] as? [String: Any])?["file"] as? String == snapshot["file"] as? String)
        #expect(again["replayedChanges"] as? Int == 0)
        let fromSnapshot = try await document(["replay", second, "--use-snapshot"])
        #expect(fromSnapshot["digest"] as? String == replays[1]["digest"] as? String)
        #expect(fromSnapshot["changes"] as? Int == 0)
        #expect((fromSnapshot["snapshot"] as? [String: Any])?["offset"] as? Int ?? 0 > 0)

        let verified = try await document(["verify", second])
        #expect(verified["intact"] as? Bool == true)
        let totals = try #require(verified["totals"] as? [String: Any])
        #expect(totals["damagedSegments"] as? Int == 0 && (totals["records"] as? Int ?? 0) > 0)
        let inspected = try await document(["inspect", first])
        let segments = try #require(inspected["segments"] as? [[String: Any]])
        #expect(segments.last?["active"] as? Bool == true)
        let maintenance = try #require(inspected["maintenance"] as? [String: Any])
        #expect(maintenance["nodeId"] as? Int == 1 && maintenance["tombstones"] as? Int == 1)

        let compacted = try await document(["compact", first, "--dry-run"])
        #expect(compacted["dryRun"] as? Bool == true)
        let compaction = try #require(compacted["compaction"] as? [String: Any])
        #expect(compaction["didRewrite"] as? Bool == false && compaction["liveKeys"] != nil)

        let added = try await document(["peers", first, "add", "2"])
        #expect(added["action"] as? String == "add" && added["nodeId"] as? Int == 2)
        let listed = try await document(["peers", first, "list"])
        let peers = try #require(listed["peers"] as? [String: [String: Any]])
        #expect(peers["node-2"]?["registered"] as? Bool == true)
        let blocked = try await document(["gc", first, "--retention", "0"])
        let collection = try #require(blocked["collection"] as? [String: Any])
        #expect(collection["registeredPeers"] as? [Int] == [2])
        #expect(
            collection["blockedBecause"] as? String != nil && collection["collected"] as? Int == 0)

        let feed = directory + "/soda.json"
        let generated = try await LogbookExecutable.run(["generate", "bridges", "--years", "1"])
        try generated.standardOutput.write(toFile: feed, atomically: true, encoding: .utf8)
        let imported = try await document(["import", "bridges", second, feed])
        #expect(imported["kind"] as? String == "bridges" && imported["file"] as? String == feed)
        let rows = try #require(imported["rows"] as? Int)
        let skipped = (imported["skipped"] as? [String: Int] ?? [:]).values.reduce(0, +)
        #expect(rows > 0 && imported["imported"] as? Int == rows - skipped)
    }
}
