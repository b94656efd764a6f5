import ArgumentParser
import Foundation
import Logbook
import LogbookCRDT

/// `logbook crash-writer DIR`: the child process of the kill -9 crash test.
///
/// Concurrent tasks append with `.groupCommit`; after each acknowledgement the writer prints
/// `ready` once the log is open, then `ack <record> <value>` on standard output (one write per line, so a line on the pipe
/// means the append returned). The test kills it with SIGKILL at a random moment and checks
/// that every acknowledged line is in the reopened log.
struct CrashWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-writer",
        abstract: "Append and report acknowledgements until killed (for crash tests).",
        shouldDisplay: false)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "Concurrent writer tasks.")
    var writers = 8
    @Option(help: "Stop after this many appends per writer.")
    var appends = 1_000_000

    func run() async throws {
        var options = LogbookOptions()
        options.durability = .groupCommit
        options.log.segmentSizeMax = 256 * 1024  // roll often, so kills land around rolls too
        let logbook: Logbook
        do {
            logbook = try Logbook.open(directory: target.directory, nodeId: 1, options: options)
        } catch {
            throw exitWithError(error)
        }
        let pid = ProcessInfo.processInfo.processIdentifier
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for step in 0..<appends {
                        let recordId = "p\(pid)/w\(writer)/\(step)"
                        try await logbook.insertOrUpdate(
                            recordId,
                            fields: [("step", .int(Int64(step))), ("pad", "xxxxxxxxxxxxxxxx")])
                        FileHandle.standardOutput.write(Data("ack \(recordId) \(step)\n".utf8))
                    }
                }
            }
            try await group.waitForAll()
        }
        try logbook.close()
    }
}
