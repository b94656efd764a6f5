import Foundation
import Testing

// The state from the command line: `get` shows records as the replica holds them now (each
// column's winning version, deleted columns and records, ids never written), and
// `export --state` prints the state as crdt-lite JSON lines that rebuild it elsewhere.
@Suite struct StateCommandLineTests {
    @Test func getShowsTheStateAndExportStateRebuildsIt() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let (first, second) = (CommandLineTests.scratch(), CommandLineTests.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        for command in [
            ["init", first, "--node", "1"], ["put", first, "entity/lamp", "name=Lamp", "lux=40"],
            ["put", first, "entity/lamp", "name=Desk"], ["delete", first, "entity/lamp", "lux"],
            ["put", first, "entity/fan", "name=Fan"], ["delete", first, "entity/fan"],
        ] {
            #expect(try await LogbookExecutable.run(command).status == 0, "\(command)")
        }
        let get = try await LogbookExecutable.run(
            ["get", first, "entity/lamp", "entity/fan", "entity/none"])
        #expect(get.status == 0, "\(get.standardError)")
        #expect(
            get.standardOutput.split(separator: "\n").map(String.init) == [
                #"entity/lamp  deleted lux  (col v2, db v3, node 1)"#,
                #"entity/lamp  name = "Desk"  (col v2, db v2, node 1)"#,
                "entity/fan  (deleted)", "entity/none  (absent)",
            ], "\(get.standardOutput)")

        let json = try await LogbookExecutable.run(["get", first, "entity/lamp", "--json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))
                as? [String: Any])
        #expect(
            document["command"] as? String == "get" && document["directory"] as? String == first)
        let records = try #require(document["records"] as? [[String: Any]])
        let columns = try #require(records.first?["columns"] as? [[String: Any]])
        #expect(columns.map { $0["name"] as? String } == ["lux", "name"])
        #expect(columns[0]["value"] == nil && columns[1]["value"] as? String == "Desk")

        let history = try await LogbookExecutable.run(["export", first])
        let state = try await LogbookExecutable.run(["export", first, "--state"])
        #expect(state.status == 0, "\(state.standardError)")
        // Five writes logged six changes; the state is the two columns and the tombstone.
        #expect(history.standardOutput.split(separator: "\n").count == 6)
        #expect(state.standardOutput.split(separator: "\n").count == 3, "\(state.standardOutput)")
        #expect(try await LogbookExecutable.run(["init", second, "--node", "2"]).status == 0)
        let appended = try await LogbookExecutable.run(
            ["append", second, "-"], input: state.standardOutput)
        #expect(appended.standardOutput.contains("accepted 3"), "\(appended.standardOutput)")
        let rebuilt = try await LogbookExecutable.run(
            ["get", second, "entity/lamp", "entity/fan", "entity/none"])
        #expect(rebuilt.standardOutput == get.standardOutput)
        let digest = { (directory: String) in
            try await LogbookExecutable.run(["replay", directory]).standardOutput
                .split(separator: "\n").first { $0.hasPrefix("digest:") }
        }
        #expect(try await digest(first) != nil)
        #expect(try await digest(first) == digest(second))
    }

    @Test func misusedStateCommandsAreUsageErrors() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        let both = try await LogbookExecutable.run(["export", directory, "--state", "--since", "1"])
        #expect(both.status == 64)
        #expect(both.standardError.contains("--state has none"), "\(both.standardError)")
        #expect(try await LogbookExecutable.run(["get", directory]).status == 64)
        let missing = try await LogbookExecutable.run(["get", directory + "-none", "entity/x"])
        #expect(missing.status == 4, "\(missing.standardError)")
    }
}
