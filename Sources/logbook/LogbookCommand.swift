import ArgumentParser

/// The `logbook` command line: one subcommand per file, and the only code that prints.
@main
struct LogbookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logbook",
        abstract: "An append-only log engine whose every mutation is a CRDT change.",
        discussion: """
            Logbook stores column-level last-writer-wins changes (crdt-lite compatible) and
            rebuilds state by replaying them. Start with `logbook demo`.
            """,
        subcommands: [DemoCommand.self]
    )
}
