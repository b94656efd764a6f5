import Foundation
import LogbookTesting
import Testing

// The README's command-line blocks run as written, top to bottom, in an empty directory
// with the built `logbook` first on the PATH: the local blocks always, the hub block against
// the test PostgreSQL (`POSTGRES_URL` set from `LOGBOOK_TEST_POSTGRES_URL`; in CI a missing
// database fails the run instead of skipping the block).
@Suite struct ReadmeBlocksTests {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// The ```sh blocks of "## The command line", in order.
    static func commandLineBlocks() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "## The command line\n"),
            let end = text.range(of: "\n## ", range: start.upperBound..<text.endIndex)
        else { return [] }
        let section = text[start.upperBound..<end.lowerBound]
        return section.components(separatedBy: "```sh\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
    }

    @Test func theCommandLineBlocksRunAsWritten() async throws {
        guard let logbook = LogbookExecutable.built() else { return }
        let blocks = try Self.commandLineBlocks()
        try #require(blocks.count >= 4, "the README's command-line blocks were not found")
        let environment = ProcessInfo.processInfo.environment
        let database = environment["LOGBOOK_TEST_POSTGRES_URL"]
        if database == nil && environment["CI"] == "true" {
            Issue.record("CI without LOGBOOK_TEST_POSTGRES_URL: the hub block cannot run")
        }
        let runnable = blocks.filter { database != nil || !$0.contains("POSTGRES_URL") }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("logbook-readme-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A failing block must not leave a server behind.
        let script =
            "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
            + runnable.joined(separator: "\n")
        let process = Process()
        // coreutils' timeout ends a hung block (a server that never answers) after 300 s.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=10", "300", "/bin/bash", "-c", script]
        process.currentDirectoryURL = directory
        var variables = environment
        variables["PATH"] =
            logbook.deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        variables["POSTGRES_URL"] = database
        process.environment = variables
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // The blocks take a while: wait on a thread of its own, not on the task pool.
        let reading = output.fileHandleForReading
        let collected = try await onOwnThread {
            let data = reading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        let text = String(decoding: collected, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text.suffix(3000))")
        #expect(text.contains("initialized data for node 1"))
        #expect(text.contains("home-0 (home: Home 0)"), "the graph path block ran")
        if database != nil { #expect(text.contains("the hub took"), "the hub block ran") }
    }
}
