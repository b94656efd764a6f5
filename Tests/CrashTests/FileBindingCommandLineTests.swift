import Foundation
import LogbookTesting
import Testing

// Through the shipped binary: files that do not belong to the log are refused by every
// command alike, `verify` included, and a refused command changes no byte. Before, `init
// --node 2` adopted node 1's log once `logbook.json` was gone, node 0 opened, and a
// manifest copied with another log's segments passed `verify`.
@Suite struct FileBindingCommandLineTests {
    private func put(_ directory: String, count: Int) async throws {
        for number in 0..<count {
            let put = try await LogbookExecutable.run([
                "put", directory, "entity/e\(number)", "name=Entity \(number) with text to fill",
            ])
            #expect(put.status == 0, "\(put.standardError)")
        }
    }

    /// Two logs of node 1 with two records each: one to damage, one to take files from.
    private func initTwoLogs(_ first: String, _ second: String) async throws {
        for directory in [first, second] {
            #expect(
                try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
            try await put(directory, count: 2)
        }
    }

    @Test func aLogWithoutItsMetadataIsNotAdoptedByInit() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        try await put(directory, count: 3)
        try FileManager.default.removeItem(atPath: directory + "/logbook.json")
        let before = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let adopted = try await LogbookExecutable.run(["init", directory, "--node", "2"])
        #expect(adopted.status == 4, "\(adopted.standardError)")
        #expect(adopted.standardError.contains("holds a log"), "\(adopted.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == before)
    }

    /// A snapshot of another log is set aside, and the command says so on standard error.
    @Test func aCommandSaysWhichSnapshotItSetAsideAndWhy() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let (first, second) = (CommandLineTests.scratch(), CommandLineTests.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        try await initTwoLogs(first, second)
        #expect(try await LogbookExecutable.run(["snapshot", second]).status == 0)
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: second)
            .filter { $0.hasSuffix(".replica") }
        try #require(snapshots.count == 1)
        try FileManager.default.copyItem(
            atPath: second + "/" + snapshots[0], toPath: first + "/" + snapshots[0])
        let get = try await LogbookExecutable.run(["get", first, "entity/e0"])
        #expect(get.status == 0, "\(get.standardError)")
        #expect(get.standardError.contains("snapshot set aside: \(snapshots[0])"))
        #expect(get.standardError.contains("taken of log"), "\(get.standardError)")
    }

    @Test func nodeZeroAndAnotherLogsFilesAreRefusedByEveryCommand() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let (first, second) = (CommandLineTests.scratch(), CommandLineTests.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        try await initTwoLogs(first, second)
        // Another log's segments and manifest, under this directory's logbook.json.
        for name in try FileManager.default.contentsOfDirectory(atPath: second)
        where name.hasSuffix(".seg") || name == "segments.manifest" {
            try? FileManager.default.removeItem(atPath: first + "/" + name)
            try FileManager.default.copyItem(
                atPath: second + "/" + name, toPath: first + "/" + name)
        }
        for command in [["verify", first], ["get", first, "entity/e0"], ["export", first]] {
            let run = try await LogbookExecutable.run(command)
            #expect(run.status == 3, "\(command[0]): \(run.standardError)")
            #expect(run.standardError.contains("belongs to log"), "\(run.standardError)")
        }

        let metadata = second + "/logbook.json"
        let text = try String(contentsOfFile: metadata, encoding: .utf8)
        try text.replacingOccurrences(of: "\"nodeId\":1", with: "\"nodeId\":0")
            .write(toFile: metadata, atomically: true, encoding: .utf8)
        for command in [["verify", second], ["get", second, "entity/e0"]] {
            let run = try await LogbookExecutable.run(command)
            #expect(run.status == 4, "\(command[0]): \(run.standardError)")
            #expect(run.standardError.contains("node 0"), "\(run.standardError)")
        }
    }

    /// Another log's active segment alone, under this log's name: every command refuses it,
    /// the writing ones too, and the file stays as it was (it is not cut as a torn tail).
    @Test func anotherLogsActiveSegmentIsRefusedByEveryCommandAndKept() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let (first, second) = (CommandLineTests.scratch(), CommandLineTests.scratch())
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        try await initTwoLogs(first, second)
        let active = "/00000000000000000000.seg"
        try FileManager.default.removeItem(atPath: first + active)
        try FileManager.default.copyItem(atPath: second + active, toPath: first + active)
        let copied = FileManager.default.contents(atPath: first + active)
        for command in [
            ["verify", first], ["get", first, "entity/e0"], ["export", first],
            ["put", first, "entity/e9", "name=more"],
        ] {
            let run = try await LogbookExecutable.run(command)
            #expect(run.status == 3, "\(command[0]): \(run.standardError)")
            #expect(run.standardError.contains("belongs to another log"), "\(run.standardError)")
        }
        #expect(FileManager.default.contents(atPath: first + active) == copied)
    }
}
