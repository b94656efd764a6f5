import ArgumentParser
import Logbook
import LogbookBench

/// `logbook replay DIR`: rebuilds the state from the log and reports the speed.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild the state from the log; print throughput and the state digest.",
        discussion:
            "Reads, checks, decompresses and decodes every batch and applies every change to a fresh CRDT, exactly as opening the Logbook does without a snapshot. With --use-snapshot it opens as the engine does: from the newest snapshot that checks out, replaying only the log after it."
    )

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions
    @Flag(help: "Load the newest replica snapshot and replay only the log after it.")
    var useSnapshot = false

    func run() throws {
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true, readOnly: true,
            snapshots: useSnapshot ? .loadOnly : .off)
        try output.print(ReplayReport(directory: target.directory, logbook: logbook))
        do { try close(logbook) } catch { throw exitWithError(error) }
    }
}
