import ArgumentParser
import Logbook
import LogbookBench
import LogbookStorage

/// `logbook verify DIR`: checks every batch of every segment.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check every batch of every segment: checksums, LZ4 frames, record framing, offsets.",
        discussion:
            "Exit status 0 when the log is intact, 3 when any batch is damaged (each damaged segment is named with the byte offset and reason) or a segment or the manifest belongs to another log, 4 when logbook.json is damaged. Runs the checks every open runs: a directory verify passes opens to the same state under every command."
    )

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (log, summaries) = try readSegmentSummaries(target.directory, label: "verify")
        let report = SegmentsReport(
            .verify, directory: target.directory, log: log, summaries: summaries)
        try? log.close()  // read-only use: nothing pending to lose
        try output.print(report)
        if !report.intact { throw ExitCode(3) }
    }
}
