import Foundation
import Testing

// Long operations draw progress on a terminal and nothing anywhere else: the replay inside
// a command that opens the log, compaction's two passes, GC's reading and rewriting. The
// terminal is a pseudo-terminal from util-linux's `script`.
@Suite struct ProgressTests {
    /// Runs `logbook arguments...` on a pseudo-terminal; returns what it printed there.
    private func onTerminal(_ logbook: URL, _ arguments: [String]) throws -> String {
        let command = ([logbook.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func compactionAndGCShowEachPassOnATerminalOnly() throws {
        guard let logbook = LogbookExecutable.built() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-progress-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        var lines = ""
        for index in 0..<300 {
            lines += #"{"record_id":"lamp/\#(index % 30)","col_name":"lux","value":\#(index),"#
            lines += #""col_version":\#(index / 30 + 1),"db_version":\#(index + 1),"node_id":2,"#
            lines += #""local_db_version":\#(index + 1)}"# + "\n"
        }
        #expect(try LogbookExecutable.run(["append", directory, "-"], input: lines).status == 0)
        #expect(try LogbookExecutable.run(["delete", directory, "lamp/0"]).status == 0)

        let compacted = try onTerminal(logbook, ["compact", directory])
        #expect(compacted.contains("replay ["), "\(compacted)")
        #expect(compacted.contains("compact: reading keys ["), "\(compacted)")
        #expect(compacted.contains("compact: rewriting [") && compacted.contains("100%"))
        #expect(compacted.contains("sealed the active segment first"))
        let collected = try onTerminal(logbook, ["gc", directory, "--retention", "0"])
        #expect(collected.contains("gc: reading keys ["), "\(collected)")
        #expect(collected.contains("collected 1"), "\(collected)")

        let feed = directory + "-soda.json"
        defer { try? FileManager.default.removeItem(atPath: feed) }
        let generated = try LogbookExecutable.run(["generate", "bridges", "--years", "1"])
        try generated.standardOutput.write(toFile: feed, atomically: true, encoding: .utf8)
        let imported = try onTerminal(logbook, ["import", "bridges", directory, feed])
        #expect(imported.contains("import ["), "\(imported.suffix(300))")

        // Off a terminal: the report only.
        let plain = try LogbookExecutable.run(["compact", directory])
        #expect(plain.status == 0 && !plain.standardError.contains("["))
    }
}
