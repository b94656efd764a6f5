import ArgumentParser
import LogbookBench

/// `logbook get DIR RECORD...`: the current state of records.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show records as the replica holds them now, each column with its version.",
        discussion: """
            The state, where `export` prints the history. A record is live (its columns), \
            deleted, or absent. `logbook export DIR --state` prints the whole state as \
            crdt-lite JSON lines.
            """)

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "One or more record ids, e.g. entity/lamp.")
    var records: [String]
    @OptionGroup var output: OutputOptions

    func run() throws {
        let logbook = try openLogbook(target.directory, durability: .buffered, readOnly: true)
        let report = RecordsReport(directory: target.directory, recordIds: records, in: logbook)
        do { try close(logbook) } catch { throw exitWithError(error) }
        try output.print(report)
    }
}
