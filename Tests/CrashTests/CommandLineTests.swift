import Foundation
import Testing

// The CLI as a user drives it: init, put, delete, export and append round-trip through
// crdt-lite JSON; inspect and verify report; bad input and damage give clear errors and the
// documented exit codes (2 bad input, 3 corruption, 4 not a Logbook).
@Suite struct CommandLineTests {
    /// A path under the temporary directory that nothing uses yet.
    static func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-cli-\(UUID().uuidString.prefix(8))"
        ).path
    }

    @Test func writeExportAndAppendRoundTrip() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let first = Self.scratch()
        let second = Self.scratch()
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        #expect(try await LogbookExecutable.run(["init", first, "--node", "1"]).status == 0)
        let put = try await LogbookExecutable.run([
            "put", first, "entity/lamp", "name=Lamp", "content.lux=40", "on=true",
        ])
        #expect(put.status == 0)
        #expect(put.standardOutput.contains("content.lux = 40"))
        #expect(
            try await LogbookExecutable.run(["delete", first, "entity/lamp", "on"]).status == 0)
        let exported = try await LogbookExecutable.run(["export", first, "--format", "rust"])
        #expect(exported.status == 0)
        #expect(exported.standardOutput.split(separator: "\n").count == 4)
        #expect(exported.standardOutput.contains(#""record_id":"entity/lamp""#))

        #expect(try await LogbookExecutable.run(["init", second, "--node", "2"]).status == 0)
        let appended = try await LogbookExecutable.run(
            ["append", second, "-"], input: exported.standardOutput)
        #expect(appended.status == 0)
        #expect(appended.standardOutput.contains("accepted 4"))
        let firstReplay = try await LogbookExecutable.run(["replay", first])
        let secondReplay = try await LogbookExecutable.run(["replay", second])
        let digest = { (text: String) in
            text.split(separator: "\n").first { $0.hasPrefix("digest:") }
        }
        #expect(digest(firstReplay.standardOutput) != nil)
        #expect(digest(firstReplay.standardOutput) == digest(secondReplay.standardOutput))
        let verify = try await LogbookExecutable.run(["verify", second])
        #expect(verify.status == 0)
        #expect(verify.standardOutput.hasPrefix("ok:"))
        #expect(
            try await LogbookExecutable.run(["inspect", second]).standardOutput.contains("(active)")
        )
    }

    @Test func versionAndHelpSayWhatTheyShould() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let version = try await LogbookExecutable.run(["--version"])
        #expect(version.status == 0)
        #expect(
            version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0.2.0-dev")
        let help = try await LogbookExecutable.run(["--help"])
        #expect(help.status == 0)
        for status in [
            "0 ok", "1 error", "2 bad input", "3 corruption", "4 not a Logbook", "64 a usage error",
        ] {
            #expect(help.standardOutput.contains(status), "--help lacks \(status)")
        }
        #expect(try await LogbookExecutable.run(["init"]).status == 64)
    }

    @Test func compactSealsTheActiveSegmentAndSaysSo() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        for value in 1...6 {
            let put = try await LogbookExecutable.run([
                "put", directory, "entity/lamp", "lux=\(value)",
            ])
            #expect(put.status == 0)
        }
        let before = try await LogbookExecutable.run(["replay", directory]).standardOutput
        let kept = try await LogbookExecutable.run(["compact", directory, "--keep-active"])
        #expect(kept.status == 0)
        // Each put is a writing open: its epoch's mark, then its change. Marks are kept.
        #expect(
            kept.standardOutput.contains(
                "left the active segment as it is: 12 records, 4 superseded"),
            "\(kept.standardOutput)")
        let compacted = try await LogbookExecutable.run(["compact", directory])
        #expect(compacted.status == 0, "\(compacted.standardError)")
        #expect(
            compacted.standardOutput.contains(
                "sealed the active segment first, so its 12 records (4 superseded)"),
            "\(compacted.standardOutput)")
        #expect(compacted.standardOutput.contains("records: 12 -> 8"))
        let digest = { (text: String) in
            text.split(separator: "\n").first { $0.hasPrefix("digest:") }
        }
        let after = try await LogbookExecutable.run(["replay", directory]).standardOutput
        #expect(digest(after) != nil && digest(after) == digest(before))
    }

    @Test func initRecordsTheSegmentSizeThatEveryLaterCommandRollsAt() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let created = try await LogbookExecutable.run(
            ["init", directory, "--node", "1", "--segment-size", "4K"])
        #expect(created.status == 0)
        #expect(created.standardOutput.contains("segments of 4096 bytes"))
        for number in 0..<40 {
            let put = try await LogbookExecutable.run([
                "put", directory, "entity/e\(number)", "name=Entity \(number) with text to fill",
            ])
            #expect(put.status == 0)
        }
        let inspected = try await LogbookExecutable.run(["inspect", directory]).standardOutput
        #expect(!inspected.contains(", 1 segments"), "\(inspected)")
        let again = try await LogbookExecutable.run(
            ["init", directory, "--node", "1", "--segment-size", "8K"])
        #expect(again.status == 4)
        #expect(again.standardError.contains("recorded when a directory is created"))
        for bad in ["1K", "3G", "x", "-4K", "99999999999999999999G"] {
            let refused = try await LogbookExecutable.run(
                ["init", Self.scratch(), "--node", "1", "--segment-size", bad])
            #expect(refused.status == 64, "\(bad)")
            #expect(refused.standardError.contains("--segment-size"), "\(bad)")
        }
    }

    @Test func peersGateGCAndGCReportsWhatItRemoved() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        for lamp in ["a", "b", "c"] {
            #expect(
                try await LogbookExecutable.run(["put", directory, "lamp/\(lamp)", "on=true"])
                    .status == 0
            )
        }
        #expect(try await LogbookExecutable.run(["delete", directory, "lamp/b"]).status == 0)

        #expect(try await LogbookExecutable.run(["peers", directory, "add", "2"]).status == 0)
        let listed = try await LogbookExecutable.run(["peers", directory, "list"])
        #expect(listed.standardOutput.contains("node-2: node 2, registered"))
        let blocked = try await LogbookExecutable.run(["gc", directory, "--retention", "0"])
        #expect(blocked.status == 0)
        #expect(
            blocked.standardOutput.contains("blocked: peer 2 has not acknowledged anything yet"))
        #expect(blocked.standardOutput.contains("tombstones: 1 -> 1"))

        #expect(try await LogbookExecutable.run(["peers", directory, "remove", "2"]).status == 0)
        let dryRun = try await LogbookExecutable.run([
            "gc", directory, "--retention", "0", "--dry-run",
        ])
        #expect(dryRun.standardOutput.contains("would collect 1"))
        let collected = try await LogbookExecutable.run(["gc", directory, "--retention", "0"])
        #expect(collected.standardOutput.contains("tombstones: 1 -> 0 (collected 1"))
        #expect(collected.standardOutput.contains("records removed: 2"))
        let inspected = try await LogbookExecutable.run(["inspect", directory])
        #expect(inspected.standardOutput.contains("holds 0 tombstones"))

        let usage = try await LogbookExecutable.run(["peers", directory, "add"])
        #expect(usage.status == 64)
        #expect(usage.standardError.contains("add needs the peer's node id"))
        let notALogbook = try await LogbookExecutable.run(["peers", directory + "-missing", "list"])
        #expect(notALogbook.status == 4)
    }

    @Test func badInputAndDamageGiveClearErrorsAndExitCodes() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notALogbook = try await LogbookExecutable.run(["put", directory, "r", "a=1"])
        #expect(notALogbook.status == 4)
        #expect(notALogbook.standardError.contains("not a Logbook directory"))

        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        let badLine = try await LogbookExecutable.run(
            ["append", directory, "-"], input: "{\"recordId\":\"r\"}\n")
        #expect(badLine.status == 2)
        #expect(badLine.standardError.contains("line 1"))
        #expect(badLine.standardError.contains("colVersion"))

        for number in 0..<3 {
            _ = try await LogbookExecutable.run(["put", directory, "r\(number)", "a=\(number)"])
        }
        let segment = directory + "/00000000000000000000.seg"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[80] ^= 0xFF  // inside the first batch, with valid batches after it
        try bytes.write(to: URL(fileURLWithPath: segment))
        let damaged = try await LogbookExecutable.run(["verify", directory])
        #expect(damaged.status == 3)
        #expect(damaged.standardError.contains("00000000000000000000.seg"))
        #expect(damaged.standardError.contains("at byte 0"))
    }

    @Test func bridgesImportAndQueries() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        let file = directory + ".json"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: file)
        }
        let rows = """
            [{"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2025-01-03T10:12:00.000",
              "closedatetime":"2025-01-03T10:20:00.000","minutesopen":"8"},
             {"entitytype":"Bridge","entityname":"Fremont","entityid":"3","opendatetime":"2025-01-10T10:40:00.000"},
             {"entitytype":"Bridge","entityname":"Broken","entityid":"three","opendatetime":"2025-01-10T10:40:00.000"}]
            """
        try Data(rows.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        let imported = try await LogbookExecutable.run(["import", "bridges", directory, file])
        #expect(imported.status == 0)
        #expect(imported.standardOutput.contains("imported 2 of 3 rows"))
        #expect(imported.standardOutput.contains("skipped 1: entityid is not an integer"))
        let summary = try await LogbookExecutable.run(["bridges", directory, "summary", "--json"])
        #expect(summary.status == 0)
        let parsed =
            try JSONSerialization.jsonObject(with: Data(summary.standardOutput.utf8))
            as? [[String: Any]]
        #expect(parsed?.count == 1)
        #expect(parsed?.first?["openings"] as? Int == 2)
        #expect(parsed?.first?["currently_open"] as? Int == 1)
        let buckets = try await LogbookExecutable.run(["bridges", directory, "buckets"])
        #expect(buckets.standardOutput.contains("Very High"))
        // The still-open row has minutesopen 0 and no close: valid; the closed one too.
        let validation = try await LogbookExecutable.run(["bridges", directory, "validate"])
        #expect(validation.status == 0)
        #expect(validation.standardOutput.contains("2 of 2 openings pass"))
        let heatmap = try await LogbookExecutable.run(["bridges", directory, "heatmap"])
        #expect(heatmap.status == 0)
        #expect(
            heatmap.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  Fri ") }.first?
                .contains("█") == true)
    }

    @Test func homeGraphImportGraphAndSearchQueries() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = Self.scratch()
        let file = directory + ".json"
        let broken = directory + "-broken.json"
        defer {
            for path in [directory, file, broken] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let generated = try await LogbookExecutable.run([
            "generate", "home", "--entities", "400", "--seed", "3",
        ])
        #expect(generated.status == 0)
        #expect(
            try await LogbookExecutable.run([
                "generate", "home", "--entities", "400", "--seed", "3",
            ])
            .standardOutput == generated.standardOutput)
        try Data(generated.standardOutput.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        let imported = try await LogbookExecutable.run(["import", "goodies", directory, file])
        #expect(imported.status == 0)
        #expect(imported.standardOutput.contains("imported 400 entities"))

        let stats = try await LogbookExecutable.run(["graph", directory, "stats", "--json"])
        #expect(stats.status == 0)
        let statistics = try #require(
            JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [String: Any])
        #expect(statistics["total_entities"] as? Int == 400)
        #expect(
            Set(statistics.keys) == [
                "total_entities", "total_relationships", "entity_types", "relationship_types",
                "average_degree", "isolated_entities",
            ])
        #expect(stats.standardOutput.hasPrefix(#"{"total_entities": 400, "#))  // key order kept
        let path = try await LogbookExecutable.run([
            "graph", directory, "path", "device-0-0-0", "home-0", "--json",
        ])
        #expect(
            path.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                == #"["device-0-0-0", "room-0-0", "home-0"]"#)
        let none = try await LogbookExecutable.run([
            "graph", directory, "path", "home-0", "device-0-0-0", "--json",
        ])
        #expect(none.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "null")
        let notARoom = try await LogbookExecutable.run([
            "graph", directory, "devices-in-room", "home-0",
        ])
        #expect(notARoom.status == 1)
        #expect(notARoom.standardError.contains("'home-0' is a home, not a room"))
        let missingType = try await LogbookExecutable.run([
            "graph", directory, "ancestors", "room-0-0",
        ])
        #expect(missingType.status == 64)
        #expect(missingType.standardError.contains("--type"))

        let search = try await LogbookExecutable.run([
            "search", directory, "kitchen", "--limit", "3", "--json",
        ])
        #expect(search.status == 0)
        let results = try #require(
            JSONSerialization.jsonObject(with: Data(search.standardOutput.utf8)) as? [[String: Any]]
        )
        #expect(results.count == 3)
        #expect(
            results.allSatisfy { ($0["name"] as? String)?.lowercased().contains("kitchen") == true }
        )
        #expect(results.allSatisfy { $0["highlights"] != nil && $0["score"] != nil })

        try Data(#"{"entities": [{"id": "a", "name": "A"}]}"#.utf8).write(
            to: URL(fileURLWithPath: broken))
        let refused = try await LogbookExecutable.run(["import", "goodies", directory, broken])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("entities[0].entity_type: expected a string"))
    }

    @Test func generatedBridgeFeedHasTheFeedsTraitsAndIsDeterministic() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let first = try await LogbookExecutable.run([
            "generate", "bridges", "--years", "1", "--seed", "5",
        ])
        let again = try await LogbookExecutable.run([
            "generate", "bridges", "--years", "1", "--seed", "5",
        ])
        #expect(first.status == 0)
        #expect(first.standardOutput == again.standardOutput)
        let rows = try #require(
            JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8))
                as? [[String: String]])
        #expect((4000...5200).contains(rows.count))
        var perBridge: [String: Int] = [:]
        for row in rows { perBridge[row["entityname"] ?? "", default: 0] += 1 }
        #expect(perBridge.count == 7)
        #expect(perBridge.max { $0.value < $1.value }?.key == "Fremont")
        #expect(rows.contains { $0["closedatetime"] == nil })
        // Weekday rush hours (8 and 17) see far fewer openings than late morning (11 and 14).
        func hour(_ row: [String: String]) -> Int {
            Int(row["opendatetime"]?.dropFirst(11).prefix(2) ?? "") ?? -1
        }
        let rush = rows.filter { [8, 17].contains(hour($0)) }.count
        let midday = rows.filter { [11, 14].contains(hour($0)) }.count
        #expect(rush * 2 < midday)
    }
}
