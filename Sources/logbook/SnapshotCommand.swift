import ArgumentParser
import Logbook
import LogbookBench

/// `logbook snapshot DIR`: writes a replica snapshot now.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write a snapshot of the replica, so the next open replays only what follows.",
        discussion: """
            The replica's state (records, column versions, tombstones, clock) as of a log offset \
            (docs/format/replica-snapshot.md). Opening loads the newest one that checks out and \
            replays the log after it; one that does not is renamed *.set-aside. Also written on \
            close and every 64 MiB logged; GC removes them; the two newest are kept.
            """)

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true, snapshots: .loadOnly)
        let report: SnapshotReport
        do {
            report = try logbook.writeSnapshot()
            try close(logbook)
        } catch {
            throw exitWithError(error)
        }
        try output.print(
            SnapshotCommandReport(directory: target.directory, logbook: logbook, snapshot: report))
    }
}
