import Logbook
import LogbookCRDT
import LogbookShipping
import LogbookStorage
import Logging
import PostgresNIO

/// The hub's state in PostgreSQL: per stream, the winning value of every (record, column)
/// and one row per deleted record, each stamped with the `hub_version` of the merge that
/// last changed it. A store keeps nothing in memory; any number of hub processes may share
/// one database.
///
/// The version rule: a merge takes its stream's next version under that stream's row lock
/// and holds the lock until it commits, so versions commit in the order they are taken. A
/// reader that has seen version V has therefore seen every change committed with a version
/// at or below V, however many hub processes write at once.
public struct HubStore: Sendable {
    /// The most changes one push may carry; larger pushes are refused whole.
    public static let pushChangesMax = 50_000

    let client: PostgresClient
    let logger: Logger
    let metrics = HubMetrics()
    let mergeQueue = HubMergeQueue()
    /// The default bound on a wait for the database: a merge's (`mergeWaitMax`) and each
    /// request's (`HubServer.Configuration.databaseWaitMax`).
    public static let databaseWaitDefault = Duration.seconds(15)
    /// The longest one merge waits for the database, a connection included, before its
    /// whole group is answered `DatabaseDeadline.Exceeded`.
    let mergeWaitMax: Duration

    /// A store over `client`, which the caller runs (`client.run()`) while the store is used.
    /// A merge runs in a task of its own for the group it merges (`HubMergeQueue`), so no
    /// request's bound reaches it: `mergeWaitMax` is its own, and without it a merge would
    /// hold its stream's queue for as long as the database is unreachable (postgres-nio's
    /// pool keeps a request for a connection waiting with no timeout of its own).
    public init(
        client: PostgresClient, logger: Logger,
        mergeWaitMax: Duration = Self.databaseWaitDefault
    ) {
        self.client = client
        self.logger = logger
        self.mergeWaitMax = mergeWaitMax
    }

    /// Throws `HubError.schemaMissing` or `.schemaTooNew` unless the database's schema is the
    /// one this build writes.
    public func checkSchema() async throws {
        let version = try await HubSchema.currentVersion(client, logger: logger)
        if version < HubSchema.latestVersion {
            throw HubError.schemaMissing(database: version, build: HubSchema.latestVersion)
        }
        if version > HubSchema.latestVersion {
            throw HubError.schemaTooNew(database: version, build: HubSchema.latestVersion)
        }
    }

    // MARK: Streams

    /// The stream named `name`, created when `create` and absent.
    public func stream(named name: String, create: Bool) async throws -> HubStream {
        try HubStream.checkName(name)
        if create {
            try await client.query(
                "INSERT INTO logbook_streams (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
        }
        let rows = try await client.query(
            "SELECT stream_id FROM logbook_streams WHERE name = \(name)", logger: logger)
        for try await id in rows.decode(Int64.self) { return HubStream(id: id, name: name) }
        throw HubError.unknownStream(name)
    }

    // MARK: Merge

    /// Merges `changes` into `stream` with crdt-lite's rules, in one transaction; returns
    /// once it has committed. Checks every change first: one over the engine's bounds
    /// refuses the push whole. Pushes into one stream that arrive while it merges are
    /// merged together next (`HubMergeQueue`); each is told what of its own was accepted.
    ///
    /// A client's versions are held to the stream's door (`admitVersions`): past 2^62, at
    /// most 2^32 ahead of the stream's highest.
    public func merge(
        _ changes: [Change<String, String, Value>], into stream: HubStream
    ) async throws -> HubMergeReport {
        try await merge(changes, into: stream, from: .client)
    }

    /// `merge(_:into:)` of changes from `origin`: nodes' shipped batches are `.peer`.
    func merge(
        _ changes: [Change<String, String, Value>], into stream: HubStream,
        from origin: RemoteChangeOrigin
    ) async throws -> HubMergeReport {
        guard changes.count <= Self.pushChangesMax else {
            throw HubError.tooLarge(
                "a push of \(changes.count) changes is over \(Self.pushChangesMax) "
                    + "(HubStore.pushChangesMax); send it in parts")
        }
        try HubBatch.check(changes)
        guard !changes.isEmpty else { return HubMergeReport(received: 0) }
        try await admitVersions(changes, into: stream, from: origin)
        let (client, logger, metrics, limit) = (client, logger, metrics, mergeWaitMax)
        var report = try await mergeQueue.merge(changes, into: stream.id) { pushes in
            let statement = HubMergeStatement(stream: stream, batch: HubBatch(pushes: pushes))
            let started = ContinuousClock.now
            let reports = try await DatabaseDeadline.run(within: limit) {
                try await statement.run(on: client, logger: logger)
            }
            metrics.mergeDuration.record(since: started)
            metrics.merges.increment()
            return reports
        }
        report.received = changes.count
        metrics.pushedChanges.increment(by: Int64(changes.count))
        metrics.acceptedChanges.increment(
            by: Int64(report.acceptedCells + report.acceptedDeletions))
        return report
    }

    // MARK: Pull

    /// The changes of `stream` with a hub version above `since`, oldest version first, about
    /// `limit` of them: a page never splits one version, so it may hold more when one merge
    /// changed more. Record deletions come as crdt-lite deletions; every change carries its
    /// hub version as `localDbVersion`.
    public func changes(in stream: HubStream, since: UInt64, limit: Int) async throws -> HubPage {
        guard limit > 0 else { throw HubError.tooLarge("a page limit must be positive") }
        let reader = HubPageReader(stream: stream, since: since, limit: limit)
        let page = try await reader.read(on: client, logger: logger)
        metrics.pulledChanges.increment(by: Int64(page.changes.count))
        return page
    }
}

/// One replicated dataset on the hub (one home, one user's data).
public struct HubStream: Sendable, Hashable {
    /// The row id in `logbook_streams`.
    public let id: Int64
    /// The name nodes and tokens use.
    public let name: String

    /// Stream names are 1–128 characters of letters, digits, `.`, `_` and `-`: they appear
    /// in URLs, logs and command lines.
    static func checkName(_ name: String) throws(HubError) {
        guard HubStreamName.isValid(name) else {
            throw .badStreamName(ChangeAdmission.quoted(name))
        }
    }
}

/// What a merge did.
public struct HubMergeReport: Sendable, Equatable {
    /// Changes in the push.
    public var received: Int
    /// The hub version the merge took (0 when the push was empty).
    public var hubVersion: UInt64 = 0
    /// The epoch holding `hubVersion`, when the merge was of shipped batches
    /// (`HubStore.merge(batches:into:after:)`; nil for an empty push).
    public var epoch: UInt64?
    /// Column values written (new, or winning over what the hub held).
    public var acceptedCells = 0
    /// Records newly deleted.
    public var acceptedDeletions = 0
    /// Column values dropped because their record was deleted by this push.
    public var droppedCells = 0
}

/// One page of a stream's changes.
public struct HubPage: Sendable {
    /// The changes, oldest hub version first.
    public var changes: [Change<String, String, Value>]
    /// The version to ask from next: the stream's version when the page is complete, else
    /// the highest version in the page.
    public var nextSince: UInt64
    /// The stream's version when the page was read.
    public var hubVersion: UInt64
    /// Whether the page reaches `hubVersion` (nothing more to read now).
    public var isComplete: Bool
}
