import Foundation
import Testing

// The commands that only read change no byte of the directory, even one with a torn tail
// that a writer would cut and a GC state it would lower: verify, inspect, export, replay,
// graph, search, bridges. And verify and inspect answer 4 for a directory that is not a
// Logbook, creating nothing.
@Suite struct ReadOnlyCommandLineTests {
    /// Every file's name and bytes, for comparing before and after.
    private func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    @Test func readingCommandsChangeNoByte() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-readonly-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        for number in 0..<3 {
            let put = try await LogbookExecutable.run([
                "put", directory, "entity/lamp\(number)", "name=Lamp \(number)",
                "entity_type=device",
            ])
            #expect(put.status == 0)
        }
        // A torn tail: the start of a batch header with nothing after it.
        let segment = directory + "/00000000000000000000.seg"
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0x50, 0x2A, 0x4D, 0x18, 9, 9]))
        try handle.close()
        // A GC state naming an offset past the log: read around (lowered in memory), kept.
        try Data(#"{"collectedBelow":999,"historyStart":0,"sightings":[],"rounds":[]}"#.utf8)
            .write(to: URL(fileURLWithPath: directory + "/tombstone-gc.json"))
        let before = try snapshot(directory)

        let commands: [[String]] = [
            ["verify", directory], ["inspect", directory], ["export", directory],
            ["export", directory, "--state"], ["get", directory, "entity/lamp", "entity/none"],
            ["replay", directory], ["graph", directory, "stats"],
            ["search", directory, "lamp"], ["bridges", directory, "summary"],
        ]
        for command in commands {
            let result = try await LogbookExecutable.run(command)
            #expect(result.status == 0, "\(command): \(result.standardError)")
            #expect(try snapshot(directory) == before, "\(command[0]) changed the directory")
        }
        let replay = try await LogbookExecutable.run(["replay", directory])
        #expect(replay.standardError.contains("not cut (read-only)"), "\(replay.standardError)")
        #expect(
            replay.standardError.contains("tombstone GC state: collectedBelow 999 lies past"),
            "\(replay.standardError)")
        // A writer repairs it.
        #expect(try await LogbookExecutable.run(["put", directory, "entity/x", "a=1"]).status == 0)
        #expect(try snapshot(directory) != before)
    }

    @Test(arguments: ["verify", "inspect"])
    func aDirectoryThatIsNotALogbookIsExitCode4AndStaysAsItWas(command: String) async throws {
        guard LogbookExecutable.built() != nil else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-notalog-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await LogbookExecutable.run([command, directory])
        #expect(result.status == 4, "\(result.standardError)")
        #expect(result.standardError.contains("not a Logbook directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
