import ArgumentParser
import Logbook
import LogbookBench

/// `logbook snapshot DIR`: writes a replica snapshot now.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write a snapshot of the replica, so the next open replays only what follows.",
        discussion: """
            A snapshot holds the replica's state (records, column versions, tombstones, clock) \
            and the log offset it covers, checksummed (docs/format/replica-snapshot.md). Opening \
            loads the newest one that checks out against the log and replays only the records \
            after it; one that does not is renamed *.set-aside and the log replayed. The engine \
            also writes them on close and every 64 MiB logged; tombstone GC removes them. The \
            two newest are kept.
            """)

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        var policy = SnapshotPolicy()
        policy.onCloseAfterBytes = nil  // the one written below is the one reported
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true, snapshots: policy)
        let report: SnapshotReport
        do {
            report = try logbook.writeSnapshot()
            try logbook.close()
        } catch {
            throw exitWithError(error)
        }
        try output.print(
            SnapshotCommandReport(directory: target.directory, logbook: logbook, snapshot: report))
    }
}
