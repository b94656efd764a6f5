import ArgumentParser
import Logbook

/// The `logbook` command line: one subcommand per file, and the only code that prints.
@main
struct LogbookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logbook",
        abstract: "An append-only log engine whose every mutation is a CRDT change.",
        discussion: """
            Logbook stores column-level last-writer-wins changes (crdt-lite compatible) in \
            LZ4-compressed, checksummed log segments and rebuilds state by replaying them.

            Start with `logbook demo`; then `logbook init DIR --node 1`, \
            `logbook put DIR entity/lamp name=Lamp`, `logbook get DIR entity/lamp`, `logbook export DIR`.

            Exit status: 0 ok, 1 error, 2 bad input, 3 corruption found, 4 not a Logbook \
            directory (or another node's), 64 a usage error (missing or invalid arguments).
            """,
        version: LogbookVersion.current,
        subcommands: [
            DemoCommand.self, InitCommand.self, PutCommand.self, DeleteCommand.self,
            GetCommand.self, AppendCommand.self, ExportCommand.self, InspectCommand.self,
            CompactCommand.self, GCCommand.self, PeersCommand.self, ImportCommand.self,
            GenerateCommand.self,
            GraphCommand.self, SearchCommand.self, BridgesCommand.self, VerifyCommand.self,
            ServeCommand.self, SyncCommand.self, ReplayCommand.self, BenchCommand.self,
            HubCommand.self, SnapshotCommand.self,
        ]
    )
}
