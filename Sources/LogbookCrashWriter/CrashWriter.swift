import ArgumentParser
import Foundation
import Logbook
import LogbookCRDT

/// `logbook-crash-writer [write] DIR` and `logbook-crash-writer read DIR`: the child
/// processes of the kill -9 crash test and of the readers-beside-a-writer test. A test-only
/// executable (no product): the `logbook` users install does not carry it.
@main
struct CrashTestProcess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logbook-crash-writer",
        abstract: "A writer or a reader for the process tests.",
        subcommands: [CrashWriter.self, BesideWriterReader.self],
        defaultSubcommand: CrashWriter.self)
}

/// Concurrent tasks append with `.groupCommit`; the writer prints `ready` once the log is
/// open, then `ack <record> <step>` on standard output after each acknowledgement (one write
/// per line, so a line on the pipe means the append returned). The crash test kills it with
/// SIGKILL at a random moment and checks that every acknowledged line is in the reopened log.
struct CrashWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Append and report acknowledgements until killed (for crash tests).")

    @Argument(help: "The Logbook directory (created if missing, as node 1).")
    var directory: String
    @Option(help: "Concurrent writer tasks.")
    var writers = 8
    @Option(help: "Stop after this many appends per writer.")
    var appends = 1_000_000
    @Option(help: "Records each writer overwrites in turn (so compaction has work).")
    var keys = 50
    @Flag(help: "Compact continuously on a separate thread while writing.")
    var compact = false

    func run() async throws {
        var options = LogbookOptions()
        options.durability = .groupCommit
        // Roll often, so kills land around rolls, and compaction has sealed segments to do.
        options.log.segmentSizeMax = compact ? 16 * 1024 : 256 * 1024
        options.log.batchSizeTarget = 4096
        let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
        let pid = ProcessInfo.processInfo.processIdentifier
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        if compact { startCompacting(logbook) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for step in 0..<appends {
                        let recordId = "p\(pid)/w\(writer)/\(step % keys)"
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

    /// Compacts in a loop on its own thread (compaction blocks, so it stays off the pool).
    private func startCompacting(_ logbook: Logbook) {
        let thread = Thread {
            var options = CompactionOptions()
            options.dirtyRatioMin = 0
            while true {
                if let report = try? logbook.compact(options), report.didRewrite {
                    FileHandle.standardOutput.write(
                        Data("compacted \(report.segmentsBefore)->\(report.segmentsAfter)\n".utf8))
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        thread.start()
    }
}
