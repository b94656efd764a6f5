import Foundation
import Testing

// `make install`'s script as a user gets it: the binary, a manual page generated from the
// commands' own help, and bash, zsh and fish completions that know the commands and their
// options. Run with the debug builds `make test` makes and a temporary prefix.
@Suite struct InstallTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/install.sh")

    @Test func theBinaryItsManualAndItsCompletionsLandUnderThePrefix() async throws {
        guard let logbook = LogbookExecutable.built() else { return }
        guard let generator = LogbookExecutable.built(named: "generate-manual") else {
            Issue.record(
                "generate-manual is not built beside the tests; run `swift build --product generate-manual` (make test does)"
            )
            return
        }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-install-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script.path, logbook.path, generator.path, prefix]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        await process.exited()
        #expect(process.terminationStatus == 0)

        let installed = URL(fileURLWithPath: prefix)
        let read = { (path: String) in
            (try? String(contentsOf: installed.appendingPathComponent(path), encoding: .utf8))
                ?? ""
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/logbook"))
        let manual = read("share/man/man1/logbook.1")
        #expect(
            manual.contains(".Dt LOGBOOK 1") || manual.contains(".TH LOGBOOK"),
            "\(manual.prefix(300))")
        for command in ["compact", "verify", "serve", "hub"] {
            #expect(manual.contains(command), "the manual lacks \(command)")
        }
        #expect(manual.contains("json"), "the manual lacks --json")
        let bash = read("share/bash-completion/completions/logbook")
        #expect(bash.contains("complete") && bash.contains("compact") && bash.contains("--json"))
        #expect(read("share/zsh/site-functions/_logbook").hasPrefix("#compdef logbook"))
        #expect(
            read("share/fish/vendor_completions.d/logbook.fish").contains("complete -c 'logbook'"))

        // A usage error names what is missing.
        let usage = Process()
        usage.executableURL = URL(fileURLWithPath: "/bin/bash")
        usage.arguments = [Self.script.path, logbook.path]
        usage.standardError = FileHandle.nullDevice
        try usage.run()
        await usage.exited()
        #expect(usage.terminationStatus == 64)
    }
}
