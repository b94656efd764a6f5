import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookStorage

/// `logbook inspect DIR`: segments, batches, records, sizes and compression.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the log's segments, batches, records, offsets and compression.",
        discussion:
            "Reads every batch (checking its checksum) but decodes no change. Damaged segments are listed with the problem; see also `logbook verify`."
    )

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (log, summaries) = try readSegmentSummaries(target.directory, label: "inspect")
        var report = SegmentsReport(
            .inspect, directory: target.directory, log: log, summaries: summaries)
        try? log.close()  // read-only use: nothing pending to lose
        // Needs an intact log: a damaged one is reported without it.
        do { report.maintenance = try MaintenanceSummary(directory: target.directory) } catch {
            report.maintenanceUnavailable = "\(error)"
        }
        try output.print(report)
        if !report.intact { throw ExitCode(3) }
    }
}

/// Opens an existing log read-only (no byte changes) and reads every batch of every
/// segment, with progress on a terminal; failures become exit codes (4 for a directory
/// that is not a Logbook). The caller closes the log.
func readSegmentSummaries(_ directory: String, label: String) throws -> (Log, [SegmentSummary]) {
    let log: Log
    do { log = try Logbook.openLogReadOnly(directory: directory) } catch {
        throw exitWithError(error)
    }
    if !log.recovery.isClean {
        var standardError = StandardError()
        print("recovery: \(terminalSafe("\(log.recovery)"))", to: &standardError)
    }
    let bar = ProgressBar.isTerminal ? ProgressBar(label: label) : nil
    do {
        return (log, try log.inspect { bar?.update($0, of: $1) })
    } catch {
        try? log.close()  // read-only use: nothing pending to lose
        throw exitWithError(error)
    }
}

/// Prints rows under a header, columns padded to their widest cell; one-cell rows span.
func printTable(header: [String], rows: [[String]]) {
    print(TextTable.render(header: header, rows: rows), terminator: "")
}
