import Foundation
import LogbookTesting
import Testing

// Long operations draw progress on a terminal and nothing anywhere else: the replay inside
// a command that opens the log, compaction's two passes, GC's reading and rewriting. The
// terminal is a pseudo-terminal from util-linux's `script`.
@Suite struct ProgressTests {
    /// Runs `logbook arguments...` on a pseudo-terminal; returns what it printed there.
    private func onTerminal(_ logbook: URL, _ arguments: [String]) async throws -> String {
        let command = ([logbook.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        let (status, data) = try await onOwnThread { [process, output] in
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, data)
        }
        #expect(status == 0, "\(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func compactionAndGCShowEachPassOnATerminalOnly() async throws {
        guard let logbook = LogbookExecutable.built() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-progress-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        var lines = ""
        for index in 0..<300 {
            lines += #"{"record_id":"lamp/\#(index % 30)","col_name":"lux","value":\#(index),"#
            lines += #""col_version":\#(index / 30 + 1),"db_version":\#(index + 1),"node_id":2,"#
            lines += #""local_db_version":\#(index + 1)}"# + "\n"
        }
        #expect(
            try await LogbookExecutable.run(["append", directory, "-"], input: lines).status == 0)
        #expect(try await LogbookExecutable.run(["delete", directory, "lamp/0"]).status == 0)

        let compacted = try await onTerminal(logbook, ["compact", directory])
        #expect(compacted.contains("replay ["), "\(compacted)")
        #expect(compacted.contains("compact: reading keys ["), "\(compacted)")
        #expect(compacted.contains("compact: rewriting [") && compacted.contains("100%"))
        #expect(compacted.contains("sealed the active segment first"))
        let collected = try await onTerminal(logbook, ["gc", directory, "--retention", "0"])
        #expect(collected.contains("gc: reading keys ["), "\(collected)")
        #expect(collected.contains("collected 1"), "\(collected)")

        let feed = directory + "-soda.json"
        defer { try? FileManager.default.removeItem(atPath: feed) }
        let generated = try await LogbookExecutable.run(["generate", "bridges", "--years", "1"])
        try generated.standardOutput.write(toFile: feed, atomically: true, encoding: .utf8)
        let imported = try await onTerminal(logbook, ["import", "bridges", directory, feed])
        #expect(imported.contains("import ["), "\(imported.suffix(300))")

        // Off a terminal: the report only.
        let plain = try await LogbookExecutable.run(["compact", directory])
        #expect(plain.status == 0 && !plain.standardError.contains("["))
    }
}
