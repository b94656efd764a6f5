import ArgumentParser
import Logbook
import LogbookStorage

/// `logbook verify DIR`: checks every batch of every segment.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check every batch of every segment: checksums, LZ4 frames, record framing, offsets.",
        discussion:
            "Exit status 0 when the log is intact, 3 when any batch is damaged (each damaged segment is named with the byte offset and reason)."
    )

    @OptionGroup var target: DirectoryArgument

    func run() throws {
        let (log, summaries) = try readSegmentSummaries(target.directory, label: "verify")
        defer { try? log.close() }  // read-only use: nothing pending to lose
        let damaged = summaries.filter { $0.problem != nil }
        let batches = summaries.reduce(0) { $0 + $1.batchCount }
        let records = summaries.reduce(0) { $0 + $1.recordCount }
        for summary in damaged {
            print("DAMAGED \(summary.name): \(summary.problem.map(String.init(describing:)) ?? "")")
        }
        if damaged.isEmpty {
            print(
                "ok: \(summaries.count) segments, \(batches) batches, \(records) records verified")
        } else {
            print("\(damaged.count) of \(summaries.count) segments damaged")
            throw ExitCode(3)
        }
    }
}
