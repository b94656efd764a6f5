import ArgumentParser
import LogbookHub
import Logging

/// `logbook hub ...`: the hub's operations on its PostgreSQL database.
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract:
            "Operate a hub: stream state in PostgreSQL that any number of nodes sync through.",
        discussion: "See docs/hub.md for the schema, the merge rule and operations.",
        subcommands: [HubMigrateCommand.self])
}

/// The database URL every hub command takes.
struct PostgresOption: ParsableArguments {
    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "The hub's database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require], or ?host=/socket/dir for a Unix socket.",
            valueName: "url"))
    var url: String

    func database() throws -> HubDatabase {
        do { return try HubDatabase(url: url) } catch { throw badInput("\(error)") }
    }
}

/// `logbook hub migrate --postgres URL`: creates or upgrades the schema; safe to repeat and
/// to run from several places at once.
struct HubMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the hub's tables (idempotent; safe to run concurrently).")

    @OptionGroup var postgres: PostgresOption

    func run() async throws {
        let database = try postgres.database()
        let logger = Logger(label: "logbook.hub")
        do {
            let applied = try await database.migrate(logger: logger)
            if applied.isEmpty {
                print(
                    "\(database.redacted): schema already at version \(HubSchema.latestVersion)")
            } else {
                print(
                    "\(database.redacted): applied migration(s) \(applied.map(String.init).joined(separator: ", ")); schema at version \(HubSchema.latestVersion)"
                )
            }
        } catch {
            throw exitWithError(error)
        }
    }
}
