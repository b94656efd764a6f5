import Foundation
import LogbookTesting
import Testing

/// Finds and runs the `logbook` executable built beside the test bundle.
enum LogbookExecutable {
    static var url: URL? { built(named: "logbook") }

    /// The test-only crash writer (`LogbookCrashWriter`), built beside the tests.
    static var crashWriter: URL? { built(named: "LogbookCrashWriter") }

    static func built(named name: String) -> URL? {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The executable (`logbook`, or with `crashWriter` the test-only writer), or nil
    /// after recording a test issue that says how to build it.
    static func built(crashWriter: Bool = false) -> URL? {
        guard let url = crashWriter ? Self.crashWriter : url else {
            Issue.record(
                "the \(crashWriter ? "LogbookCrashWriter" : "logbook") executable is not built beside the tests; run `swift build --build-tests` (make test does)"
            )
            return nil
        }
        return url
    }

    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `logbook arguments...` with optional standard input and extra environment
    /// variables; waits for it. With a `timeout`, a run still going then is killed (SIGKILL),
    /// so a hung command fails its test instead of hanging the suite.
    /// The wait is on a thread of its own (`onOwnThread`): a test blocking one of the two
    /// cooperative threads for a command's whole run starves every other test of the suite.
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        timeout: Duration? = nil
    ) async throws -> Output {
        try await onOwnThread {
            try runWaiting(arguments, input: input, environment: environment, timeout: timeout)
        }
    }

    private static func runWaiting(
        _ arguments: [String], input: String?, environment: [String: String],
        timeout: Duration?
    ) throws -> Output {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        let watchdog = timeout.map { limit in
            let pid = process.processIdentifier
            let item = DispatchWorkItem { kill(pid, SIGKILL) }
            let seconds = Double(limit.components.seconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        defer { watchdog?.cancel() }
        if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inputPipe.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
