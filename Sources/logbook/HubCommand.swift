import ArgumentParser
import LogbookHub
import LogbookNode
import Logging

/// `logbook hub ...`: the hub's operations on its PostgreSQL database.
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract:
            "Operate a hub: stream state in PostgreSQL that any number of nodes sync through.",
        discussion: "See docs/hub.md for the schema, the merge rule and operations.",
        subcommands: [
            HubMigrateCommand.self, HubServeCommand.self, HubTokenCommand.self, HubGCCommand.self,
        ])
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
            print(database.describeMigration(applied: try await database.migrate(logger: logger)))
        } catch {
            throw exitWithError(error)
        }
    }
}

/// `logbook hub serve --postgres URL [--port P]`: one stateless hub process.
struct HubServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve streams over HTTP from the hub's database (run any number of these).",
        discussion: """
            Each stream is served at /streams/NAME: GET changes?since=V[&limit=N] and POST \
            changes take crdt-lite JSON, so a crdt-lite client uses http://HOST:PORT/streams/NAME \
            as it would a node. Tokens (logbook hub token create) grant streams; /healthz and \
            /readyz need none. The process keeps nothing but its connection pool: run several \
            behind a load balancer. SIGTERM or SIGINT stops it after answering what is in flight. \
            The database must be migrated first (logbook hub migrate).
            """)

    @OptionGroup var postgres: PostgresOption
    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"
    @Option(help: "The port to listen on.")
    var port = 7400
    @OptionGroup var connections: ConnectionOptions
    @Option(help: "The largest request body in bytes.")
    var requestBytesMax = 16 << 20
    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info
    @Option(help: "Run tombstone GC over every stream this often, in seconds (see `hub gc`).")
    var gcEvery: Double?
    @OptionGroup var gc: HubGCOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let gcEvery, !(gcEvery > 0) { throw ValidationError("--gc-every must be positive") }
        try gc.validate()
        guard requestBytesMax > 0 else {
            throw ValidationError("--request-bytes-max must be positive")
        }
    }

    func run() async throws {
        let database = try postgres.database()
        bootstrapLogging(level: logLevel)
        let logger = Logger(label: "logbook.hub")
        var configuration = HubServer.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.requestBytesMax = requestBytesMax
        configuration.connections = connections.applied(to: configuration.connections)
        configuration.metricsRegistry = LogbookNode.bootstrapMetrics()
        configuration.collection = gc.schedule
        configuration.collection.every = gcEvery.map { .milliseconds(Int64($0 * 1000)) }
        let host = host
        do {
            try await HubProcess.run(
                database: database, configuration: configuration, logger: logger
            ) { port in
                logger.info("hub serving \(database.redacted) at http://\(host):\(port)")
            }
        } catch {
            throw exitWithError(error)
        }
    }
}

/// `logbook hub token ...`: access to streams.
struct HubTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Create tokens that grant streams.",
        subcommands: [HubTokenCreateCommand.self])
}

/// `logbook hub token create --postgres URL --stream S [--stream S2] [--read-only]`.
struct HubTokenCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Print a new token granting the named streams (created when absent).",
        discussion: """
            The token is printed once; the database keeps only its SHA-256. It grants exactly \
            the streams named: a request for any other stream is refused as if the token were \
            unknown. Keep it in a file readable by its user only and pass it to nodes with \
            --token-file.
            """)

    @OptionGroup var postgres: PostgresOption
    @Option(
        name: .customLong("stream"),
        help: "A stream the token grants (repeat for more): 1–128 letters, digits, '.', '_', '-'.")
    var streams: [String] = []
    @Flag(help: "Grant reading only (no pushes).")
    var readOnly = false

    func validate() throws {
        guard !streams.isEmpty else { throw ValidationError("name at least one --stream") }
    }

    func run() async throws {
        let database = try postgres.database()
        do {
            print(
                try await database.createToken(
                    streams: streams, readOnly: readOnly, logger: Logger(label: "logbook.hub")))
        } catch {
            throw exitWithError(error)
        }
    }
}

/// The GC timing options of `hub gc` and `hub serve`.
struct HubGCOptions: ParsableArguments {
    @Option(
        name: .customLong("gc-retention"), help: "Collect tombstones only this many seconds old.")
    var retention: Double = 86_400
    @Option(
        name: .customLong("gc-grace"),
        help: "Seconds between every node having collected a tombstone and its deletion.")
    var grace: Double = 600

    func validate() throws {
        guard retention >= 0, grace >= 0 else {
            throw ValidationError("--gc-retention and --gc-grace must not be negative")
        }
    }

    var schedule: HubCollectionSchedule {
        var schedule = HubCollectionSchedule()
        schedule.retentionSeconds = retention
        schedule.graceSeconds = grace
        return schedule
    }
}

/// `logbook hub gc --postgres URL [--stream S]…`: one tombstone GC pass.
struct HubGCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Run one tombstone GC pass over the hub's streams (docs/maintenance.md).",
        discussion: """
            Tombstones become collectable once every node registered with the stream (by its \
            first acknowledgement) has pulled them in a settled pull and they are older than \
            --gc-retention; nodes collect them with `logbook sync --gc` or `serve --gc-every`. \
            The hub deletes its rows --gc-grace after every node reported collecting them. A \
            node that never syncs again holds GC back: the report names the slowest node. A \
            pass already running on a stream (a hub's --gc-every) is waited for, up to 60 s.
            """)

    @OptionGroup var postgres: PostgresOption
    @Option(name: .customLong("stream"), help: "A stream to collect (repeat; default: all).")
    var streams: [String] = []
    @OptionGroup var gc: HubGCOptions

    func run() async throws {
        let database = try postgres.database()
        do {
            let reports = try await database.collectTombstones(
                gc.schedule.waitingForRunningPasses(seconds: 60),
                streams: streams.isEmpty ? nil : streams,
                logger: Logger(label: "logbook.hub"))
            for report in reports { print(report) }
        } catch {
            throw exitWithError(error)
        }
    }
}
