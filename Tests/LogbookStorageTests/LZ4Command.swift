import Foundation
import Testing

/// Debian's `lz4` command, which the codec tests compare against (installed by
/// scripts/install-dependencies.sh and .ci/run). A test that needs it fails when it is
/// missing, rather than passing without comparing anything.
enum LZ4Command {
    /// The command's path; records an issue and returns nil when it is not installed.
    static func located() -> String? {
        guard
            let path = ["/usr/bin/lz4", "/usr/local/bin/lz4"].first(
                where: FileManager.default.isExecutableFile)
        else {
            Issue.record(
                Comment(
                    rawValue: "the lz4 command is not installed (apt-get install lz4); "
                        + "scripts/install-dependencies.sh installs it"))
            return nil
        }
        return path
    }

    /// Runs `lz4 arguments` and returns its exit status and standard output.
    static func run(_ path: String, _ arguments: [String]) throws -> (Int32, [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](output))
    }
}
