import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// One hub process, as `logbook hub serve` runs it: the database's connection pool and the
/// HTTP server as services in one group, stopped gracefully by SIGTERM or SIGINT (requests
/// in flight are answered, then the pool closes).
public enum HubProcess {
    /// Checks that the database answers and holds this build's schema, then serves until a
    /// signal; `onListening` hears the port. Throws `HubError` when the database cannot be
    /// reached or its schema does not match, before anything listens.
    public static func run(
        database: HubDatabase, configuration: HubServer.Configuration, logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        // Before anything listens: a hub must never serve a database it would misread.
        try await database.withClient(logger: logger) { client in
            try await HubStore(client: client, logger: logger).checkSchema()
        }
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(
            configuration: database.configuration, backgroundLogger: background)
        let store = HubStore(
            client: client, logger: logger, mergeWaitMax: configuration.databaseWaitMax)
        let application = HubServer(store: store, configuration: configuration).application {
            port in onListening(port)
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: client), .init(service: application, serviceName: "hub"),
        ]
        // Only when scheduled: a service that returns would end the whole group.
        if configuration.collection.every != nil {
            services.append(
                .init(
                    service: HubCollectionService(
                        store: store, schedule: configuration.collection, logger: logger),
                    serviceName: "gc"))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // A request outlives neither its longest wait nor the database bound: past both, a
        // stop no longer waits for it.
        groupConfiguration.maximumGracefulShutdownDuration =
            configuration.logWaitMax + configuration.databaseWaitMax + .seconds(5)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
    }
}
