import Foundation
import Logbook
import LogbookCRDT
import Logging
import PostgresNIO

/// Tombstone GC through the hub (`StreamCollectionRule`; docs/maintenance.md, "GC through a
/// hub"): the nodes' acknowledgements register them and carry their settled pulls and how
/// far they collected; the list of collectable tombstones; the GC pass that moves the
/// stream's horizons and deletes the tombstone rows every node has collected.
extension HubStore {
    /// The most tombstones one list page holds (whole versions, so a page may hold more).
    static let collectablePageMax = 10_000
    /// The key of a stream's GC advisory lock is this plus the stream id: one GC pass per
    /// stream at a time, without holding the stream's row lock (merges take that).
    static let collectionLockBase: Int64 = 0x4C47_424B_4743_0000

    /// Stores `ack` from its node: registers the node with the stream (its GC now waits for
    /// it), and stores the reader position, the settled pull and how far the node collected
    /// the list. The last two only rise and are clamped to what the stream has reached, so
    /// a confused node cannot move GC past what exists. Node 0 is no node.
    ///
    /// The settled pull is also clamped to the position acknowledged: a node cannot have
    /// settled a pull further than it has pulled, so a larger claim (a `peers.json` copied
    /// from elsewhere, an older build) is read as the position. A position past the stream's
    /// head (a node that pulled from a copy of the database this one was restored behind)
    /// names versions this stream does not hold: the node is still registered and its
    /// position stored, but neither claim is raised, and a warning is logged; the node's next
    /// pull is refused as diverged and it takes the state (docs/hub.md, "Acknowledgements").
    /// A position within the head from such a history is told apart by its epoch, when the
    /// node states one: another epoch holding that version now is handled the same way
    /// (docs/hub.md, "Epochs").
    ///
    /// Only a node's first acknowledgement (its registration) waits for the WAL flush. The
    /// later ones commit without (`synchronous_commit` off for that transaction only): a
    /// database crash can lose their last fraction of a second, which sets the values back
    /// to older ones, and older values only hold GC back. Nodes acknowledge every few hundred
    /// milliseconds, so this spares the database most of their flushes. A later flushed
    /// commit (a push, a GC pass that read them) makes them durable anyway.
    @discardableResult
    public func acknowledge(_ ack: ReplicationAcknowledgement, in stream: HubStream) async throws
        -> HubAcknowledgementReceipt
    {
        guard ack.node != 0 else { throw HubError.badRequest("node 0 is no node; nothing stored") }
        let version = HubColumns.version(min(HubOffsets.since(ack.offset), ChangeLimits.versionMax))
        let settled = HubColumns.version(
            min(HubOffsets.since(ack.settled ?? 0), ChangeLimits.versionMax))
        let listed = HubColumns.version(min(ack.listedCollectedBelow ?? 0, ChangeLimits.versionMax))
        let stated = ack.epoch.map { Int64(bitPattern: $0) }
        // `held`: the acknowledged position lies within the stream and, when the node states
        // the epoch it saw that version in, the same epoch holds it now. Claims from a
        // position the stream does not hold are stored as 0, which `greatest` leaves unused.
        let rows = try await client.query(
            """
            WITH position AS (
                SELECT stream_id, hub_version, collectable_below,
                    \(version) <= hub_version AND (\(stated)::bigint IS NULL OR \(version) = 0
                        OR coalesce(logbook_epoch_at(stream_id, \(version)), \(stated))
                            = \(stated))
                    AS held
                FROM logbook_streams WHERE stream_id = \(stream.id)
            ), stored AS (
                INSERT INTO logbook_stream_nodes
                    (stream_id, node_id, acknowledged_version, acknowledged_at, settled_version,
                     listed_collected_below)
                SELECT stream_id, \(HubColumns.nodeId(ack.node)), \(version), now(),
                    CASE WHEN held THEN least(\(settled), \(version), hub_version) ELSE 0 END,
                    CASE WHEN held THEN least(\(listed), collectable_below) ELSE 0 END
                FROM position, (
                    SELECT set_config('synchronous_commit', CASE WHEN EXISTS (
                        SELECT 1 FROM logbook_stream_nodes
                        WHERE stream_id = \(stream.id)
                            AND node_id = \(HubColumns.nodeId(ack.node))
                    ) THEN 'off' ELSE 'on' END, true)) AS registration
                ON CONFLICT (stream_id, node_id) DO UPDATE
                SET acknowledged_version = excluded.acknowledged_version,
                    acknowledged_at = excluded.acknowledged_at,
                    settled_version = greatest(
                        logbook_stream_nodes.settled_version, excluded.settled_version),
                    listed_collected_below = greatest(
                        logbook_stream_nodes.listed_collected_below,
                        excluded.listed_collected_below)
            )
            SELECT hub_version, held FROM position
            """, logger: logger)
        var answer: (head: Int64, held: Bool)?
        for try await row in rows.decode((Int64, Bool).self) { answer = row }
        guard let answer else { throw HubError.unknownStream(stream.name) }
        let receipt = HubAcknowledgementReceipt(
            acknowledgedVersion: HubColumns.version(stored: version),
            streamVersion: HubColumns.version(stored: answer.head), positionHeld: answer.held)
        if !receipt.positionHeld {
            logger.warning(
                """
                acknowledgement of a position the stream does not hold (past its version, or \
                in an epoch it no longer holds); settled and listed not raised
                """,
                metadata: [
                    "stream": "\(stream.name)", "node": "\(ack.node)",
                    "acknowledged_version": "\(receipt.acknowledgedVersion)",
                    "stated_epoch": "\(ack.epoch.map(String.init) ?? "none")",
                    "hub_version": "\(receipt.streamVersion)",
                ])
        }
        return receipt
    }

    /// The tombstones nodes may collect, from hub version `from` on: whole versions, about
    /// `collectablePageMax` of them.
    public func collectable(in stream: HubStream, from: UInt64) async throws
        -> CollectableTombstones
    {
        let logger = logger
        let from = HubColumns.version(min(from, ChangeLimits.versionMax))
        return try await client.transaction(logger: logger) { connection in
            try await connection.query(
                "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let heads = try await connection.query(
                """
                SELECT collectable_below, collected_below FROM logbook_streams
                WHERE stream_id = \(stream.id)
                """, logger: logger)
            var head: (collectable: Int64, collected: Int64)?
            for try await row in heads.decode((Int64, Int64).self) { head = row }
            guard let head else { throw HubError.unknownStream(stream.name) }
            let start = min(from, head.collectable)
            // The page's end: below the version of the first tombstone past the page, or
            // the horizon; never splitting a version.
            let past = try await connection.query(
                """
                SELECT hub_version FROM logbook_tombstones
                WHERE stream_id = \(stream.id) AND hub_version >= \(start)
                    AND hub_version < \(head.collectable)
                ORDER BY hub_version OFFSET \(Self.collectablePageMax) LIMIT 1
                """, logger: logger)
            var end = head.collectable
            for try await version in past.decode(Int64.self) { end = version }
            // One version larger than a page is listed whole.
            if end == start && start < head.collectable { end = start + 1 }
            let rows = try await connection.query(
                """
                SELECT record_id, hub_version FROM logbook_tombstones
                WHERE stream_id = \(stream.id) AND hub_version >= \(start)
                    AND hub_version < \(end)
                ORDER BY hub_version, record_id
                """, logger: logger)
            var entries: [CollectableTombstones.Entry] = []
            for try await (record, version) in rows.decode((ByteBuffer, Int64).self) {
                entries.append(
                    .init(
                        recordId: String(buffer: record),
                        version: HubColumns.version(stored: version)))
            }
            return CollectableTombstones(
                entries: entries, listedBelow: HubColumns.version(stored: end),
                collectableBelow: HubColumns.version(stored: head.collectable),
                collectedBelow: HubColumns.version(stored: head.collected))
        }
    }

    /// One GC pass over `stream` at `now`: notes a retention sighting, moves the horizons by
    /// `StreamCollectionRule`, and deletes the tombstone rows below the collected horizon.
    /// A pass already running on the stream (another hub process) makes this one skip, at
    /// once or after waiting `lockWaitSeconds` for it to end.
    public func collectTombstones(
        in stream: HubStream, retentionSeconds: Double, graceSeconds: Double,
        lockWaitSeconds: Double = 0, now: Date = Date()
    ) async throws -> HubCollectionReport {
        let logger = logger
        let seconds = now.timeIntervalSince1970
        do {
            return try await client.transaction(logger: logger) { connection in
                try await Self.takeCollectionLock(
                    of: stream, waitingSeconds: lockWaitSeconds, on: connection, logger: logger)
                return try await Self.collectTombstones(
                    in: stream, retentionSeconds: retentionSeconds, graceSeconds: graceSeconds,
                    at: seconds, on: connection, logger: logger)
            }
        } catch is CollectionLockBusy {
            var report = HubCollectionReport(stream: stream.name)
            report.skipped = true
            return report
        }
    }

    private static func collectTombstones(
        in stream: HubStream, retentionSeconds: Double, graceSeconds: Double, at seconds: Double,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> HubCollectionReport {
        var report = HubCollectionReport(stream: stream.name)
        let heads = try await connection.query(
            """
            SELECT hub_version, collectable_below, collected_below, pending_collected_below,
                pending_since, gc_sightings
            FROM logbook_streams WHERE stream_id = \(stream.id)
            """, logger: logger)
        var found: (Int64, Int64, Int64, Int64, Double, String)?
        for try await row in heads.decode((Int64, Int64, Int64, Int64, Double, String).self) {
            found = row
        }
        guard let (version, collectable, collected, pending, since, sightingsText) = found
        else { throw HubError.unknownStream(stream.name) }
        var rule = StreamCollectionRule(
            collectableBelow: HubColumns.version(stored: collectable),
            collectedBelow: HubColumns.version(stored: collected),
            pendingCollectedBelow: HubColumns.version(stored: pending), pendingSince: since)
        var sightings =
            (try? JSONDecoder().decode(
                [RetentionSighting].self, from: Data(sightingsText.utf8))) ?? []
        sightings.note(
            .init(
                time: seconds, logEnd: min(HubColumns.version(stored: version), .max - 1) + 1),
            retention: retentionSeconds)
        let nodes = try await Self.nodes(of: stream, on: connection, logger: logger)
        rule.advance(
            nodes: nodes.map(\.standing),
            retainedBelow: sightings.retainedBelow(now: seconds, retention: retentionSeconds),
            now: seconds, graceSeconds: graceSeconds)
        let deleted = try await connection.query(
            """
            WITH gone AS (
                DELETE FROM logbook_tombstones
                WHERE stream_id = \(stream.id)
                    AND hub_version < \(HubColumns.version(rule.collectedBelow))
                RETURNING 1)
            SELECT count(*) FROM gone
            """, logger: logger)
        for try await count in deleted.decode(Int64.self) { report.deleted = Int(count) }
        let sightingsJSON = String(decoding: try JSONEncoder().encode(sightings), as: UTF8.self)
        try await connection.query(
            """
            UPDATE logbook_streams
            SET collectable_below = \(HubColumns.version(rule.collectableBelow)),
                collected_below = \(HubColumns.version(rule.collectedBelow)),
                pending_collected_below = \(HubColumns.version(rule.pendingCollectedBelow)),
                pending_since = \(rule.pendingSince), gc_sightings = \(sightingsJSON)
            WHERE stream_id = \(stream.id)
            """, logger: logger)
        report.rule = rule
        report.nodes = nodes.count
        report.slowest =
            nodes.min { $0.standing.settledVersion < $1.standing.settledVersion }?
            .node
        return report
    }

    /// Every registered node of `stream` with its standing.
    static func nodes(of stream: HubStream, on connection: PostgresConnection, logger: Logger)
        async throws -> [(node: UInt64, standing: StreamCollectionRule.Node)]
    {
        let rows = try await connection.query(
            """
            SELECT node_id, settled_version, listed_collected_below FROM logbook_stream_nodes
            WHERE stream_id = \(stream.id)
            """, logger: logger)
        var nodes: [(node: UInt64, standing: StreamCollectionRule.Node)] = []
        for try await (node, settled, listed) in rows.decode((Int64, Int64, Int64).self) {
            nodes.append(
                (
                    HubColumns.nodeId(stored: node),
                    .init(
                        settledVersion: HubColumns.version(stored: settled),
                        collectedBelow: HubColumns.version(stored: listed))
                ))
        }
        return nodes
    }

    /// Every stream's name, ascending.
    public func streamNames() async throws -> [String] {
        let rows = try await client.query(
            "SELECT name FROM logbook_streams ORDER BY name", logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }
}

extension HubStore {
    /// Takes `stream`'s GC lock for the transaction on `connection`: at once, or within
    /// `waitingSeconds` (bounded by `lock_timeout`, which advisory locks obey). Throws
    /// `CollectionLockBusy` when another pass holds it; the caller's transaction then rolls
    /// back, having done nothing.
    static func takeCollectionLock(
        of stream: HubStream, waitingSeconds: Double, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let key = collectionLockBase &+ stream.id
        guard waitingSeconds > 0 else {
            var held = false
            let rows = try await connection.query(
                "SELECT pg_try_advisory_xact_lock(\(key))", logger: logger)
            for try await taken in rows.decode(Bool.self) { held = taken }
            if !held { throw CollectionLockBusy() }
            return
        }
        // SET takes no bind parameters; the value is a number formatted here, not input text.
        let milliseconds = Int(min(waitingSeconds, 86_400) * 1000)
        _ = try await connection.query(
            PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"), logger: logger)
        do {
            // The refusal arrives with the rows, not with the query's start: read them.
            let rows = try await connection.query(
                "SELECT pg_advisory_xact_lock(\(key))", logger: logger)
            for try await _ in rows {}
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
            throw CollectionLockBusy()
        }
    }
}

/// Another GC pass holds the stream's lock (`HubStore.takeCollectionLock`).
struct CollectionLockBusy: Error {}

/// What one GC pass over a stream found and did.
public struct HubCollectionReport: Sendable, Equatable, CustomStringConvertible {
    /// The stream's name.
    public var stream: String
    /// True when another pass held the stream's GC lock: this one did nothing.
    public var skipped = false
    /// The horizons after the pass.
    public var rule = StreamCollectionRule()
    /// Registered nodes.
    public var nodes = 0
    /// The registered node with the lowest settled pull (what holds the horizon back).
    public var slowest: UInt64?
    /// Tombstone rows deleted.
    public var deleted = 0

    /// One line.
    public var description: String {
        if skipped { return "\(stream): another GC pass is running; skipped" }
        var text =
            "\(stream): \(nodes) registered nodes; collectable below hub version "
            + "\(rule.collectableBelow), collected below \(rule.collectedBelow)"
        if rule.pendingCollectedBelow > rule.collectedBelow {
            text += " (\(rule.pendingCollectedBelow) after the grace)"
        }
        text += "; \(deleted) tombstones deleted"
        if nodes == 0 { text += "; no node has acknowledged the stream yet" }
        if let slowest, nodes > 0 { text += "; slowest node \(slowest)" }
        return text
    }
}

/// What the hub made of one acknowledgement (`HubStore.acknowledge`).
public struct HubAcknowledgementReceipt: Sendable, Equatable {
    /// The highest hub version the node said it has seen in full.
    public var acknowledgedVersion: UInt64
    /// The stream's head when the acknowledgement was stored.
    public var streamVersion: UInt64

    /// Whether the stream holds the acknowledged position (within its version, and in the
    /// epoch the node stated, when it did); when not, the node's settled pull and listed
    /// collection were not raised.
    public var positionHeld: Bool
}
