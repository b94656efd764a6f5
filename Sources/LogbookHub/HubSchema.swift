import Logging
import PostgresNIO

/// The hub's tables, created and upgraded by numbered migrations. `migrate` applies the ones
/// a database lacks, in order, each in its own transaction under an advisory lock, so any
/// number of hub processes (or `logbook hub migrate` runs) may call it at once and the
/// second finds nothing to do. docs/hub.md explains each table.
public enum HubSchema {
    /// One step of the schema: its number and the statements that take the database to it.
    struct Migration {
        let version: Int
        let statements: [String]
    }

    /// The newest schema version this build knows.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// An arbitrary constant naming the hub's advisory lock (no other use of advisory locks
    /// in one database may pick it).
    static let advisoryLockKey: Int64 = 0x4C47_424B_4855_4201

    static let migrations: [Migration] = [
        Migration(
            version: 1,
            statements: [
                // One row per stream: the version counter its merges take under a row lock.
                """
                CREATE TABLE logbook_streams (
                    stream_id bigserial PRIMARY KEY,
                    name text NOT NULL UNIQUE,
                    hub_version bigint NOT NULL DEFAULT 0,
                    collected_below bigint NOT NULL DEFAULT 0,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                // The winning value of every (record, column) ever written and not deleted
                // with its record. Ids are bytea: any string a node holds is storable.
                // node_id is stored with its top bit flipped so signed order is UInt64 order.
                """
                CREATE TABLE logbook_cells (
                    stream_id bigint NOT NULL REFERENCES logbook_streams ON DELETE CASCADE,
                    record_id bytea NOT NULL,
                    col_name bytea NOT NULL,
                    value bytea,
                    col_version bigint NOT NULL,
                    db_version bigint NOT NULL,
                    node_id bigint NOT NULL,
                    hub_version bigint NOT NULL,
                    PRIMARY KEY (stream_id, record_id, col_name)
                )
                """,
                "CREATE INDEX logbook_cells_by_version ON logbook_cells (stream_id, hub_version)",
                """
                CREATE TABLE logbook_tombstones (
                    stream_id bigint NOT NULL REFERENCES logbook_streams ON DELETE CASCADE,
                    record_id bytea NOT NULL,
                    db_version bigint NOT NULL,
                    node_id bigint NOT NULL,
                    hub_version bigint NOT NULL,
                    collected_at timestamptz,
                    PRIMARY KEY (stream_id, record_id)
                )
                """,
                """
                CREATE INDEX logbook_tombstones_by_version
                    ON logbook_tombstones (stream_id, hub_version)
                """,
                // Nodes registered with a stream and what each has acknowledged pulling.
                """
                CREATE TABLE logbook_stream_nodes (
                    stream_id bigint NOT NULL REFERENCES logbook_streams ON DELETE CASCADE,
                    node_id bigint NOT NULL,
                    acknowledged_version bigint NOT NULL DEFAULT 0,
                    acknowledged_at timestamptz,
                    PRIMARY KEY (stream_id, node_id)
                )
                """,
                // Tokens by the SHA-256 of their secret; the secret itself is never stored.
                """
                CREATE TABLE logbook_tokens (
                    token_hash bytea PRIMARY KEY,
                    read_only boolean NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE logbook_token_streams (
                    token_hash bytea NOT NULL REFERENCES logbook_tokens ON DELETE CASCADE,
                    stream_id bigint NOT NULL REFERENCES logbook_streams ON DELETE CASCADE,
                    PRIMARY KEY (token_hash, stream_id)
                )
                """,
            ]),
        // Tombstone GC through the hub (`StreamCollectionRule`): per node, its settled pull
        // and how far it collected the hub's list; per stream, the horizons, the candidate
        // waiting out its grace, and the retention sightings (JSON `RetentionSighting`s).
        Migration(
            version: 2,
            statements: [
                """
                ALTER TABLE logbook_stream_nodes
                    ADD COLUMN settled_version bigint NOT NULL DEFAULT 0,
                    ADD COLUMN listed_collected_below bigint NOT NULL DEFAULT 0
                """,
                """
                ALTER TABLE logbook_streams
                    ADD COLUMN collectable_below bigint NOT NULL DEFAULT 0,
                    ADD COLUMN pending_collected_below bigint NOT NULL DEFAULT 0,
                    ADD COLUMN pending_since double precision NOT NULL DEFAULT 0,
                    ADD COLUMN gc_sightings text NOT NULL DEFAULT '[]'
                """,
            ]),
        // The merge as one server-side call (`HubMergeStatement`): the stream's row lock is
        // then held for the merge and the commit only, never across a round trip to a hub
        // process. Each statement of a volatile PL/pgSQL function takes its own snapshot
        // under READ COMMITTED, so the merge, started after the lock was granted, sees every
        // earlier merge of the stream (docs/hub.md, "The merge").
        Migration(
            version: 3,
            statements: [
                """
                CREATE FUNCTION logbook_merge(
                    merging_stream bigint,
                    deleted_ids bytea[], deletion_versions bigint[], deletion_nodes bigint[],
                    cell_ids bytea[], cell_columns bytea[], cell_values bytea[],
                    cell_has_value boolean[], cell_col_versions bigint[],
                    cell_db_versions bigint[], cell_nodes bigint[],
                    OUT merge_version bigint, OUT accepted_deletions bigint,
                    OUT dropped_cells bigint, OUT accepted_cells bigint)
                LANGUAGE plpgsql VOLATILE AS $merge$
                BEGIN
                    UPDATE logbook_streams SET hub_version = hub_version + 1
                    WHERE stream_id = merging_stream RETURNING hub_version INTO merge_version;
                    IF NOT FOUND THEN
                        RETURN;
                    END IF;
                    WITH deletion AS (
                        SELECT * FROM unnest(deleted_ids, deletion_versions, deletion_nodes)
                            AS d(record_id, db_version, node_id)
                    ),
                    tombstoned AS (
                        INSERT INTO logbook_tombstones
                            (stream_id, record_id, db_version, node_id, hub_version)
                        SELECT merging_stream, record_id, db_version, node_id, merge_version
                        FROM deletion
                        ON CONFLICT (stream_id, record_id) DO NOTHING
                        RETURNING record_id
                    ),
                    dropped AS (
                        DELETE FROM logbook_cells AS cell USING tombstoned
                        WHERE cell.stream_id = merging_stream
                            AND cell.record_id = tombstoned.record_id
                        RETURNING 1
                    ),
                    incoming AS (
                        SELECT * FROM unnest(cell_ids, cell_columns, cell_values, cell_has_value,
                            cell_col_versions, cell_db_versions, cell_nodes)
                            AS c(record_id, col_name, value, has_value, col_version, db_version,
                                node_id)
                    ),
                    written AS (
                        INSERT INTO logbook_cells AS held (stream_id, record_id, col_name, value,
                            col_version, db_version, node_id, hub_version)
                        SELECT merging_stream, record_id, col_name,
                            CASE WHEN has_value THEN value END,
                            col_version, db_version, node_id, merge_version
                        FROM incoming
                        WHERE NOT EXISTS (
                            SELECT 1 FROM logbook_tombstones AS t
                            WHERE t.stream_id = merging_stream
                                AND t.record_id = incoming.record_id)
                        ON CONFLICT (stream_id, record_id, col_name) DO UPDATE
                        SET value = excluded.value, col_version = excluded.col_version,
                            db_version = excluded.db_version, node_id = excluded.node_id,
                            hub_version = excluded.hub_version
                        WHERE (excluded.col_version, excluded.db_version, excluded.node_id)
                            > (held.col_version, held.db_version, held.node_id)
                        RETURNING 1
                    )
                    SELECT (SELECT count(*) FROM tombstoned), (SELECT count(*) FROM dropped),
                        (SELECT count(*) FROM written)
                    INTO accepted_deletions, dropped_cells, accepted_cells;
                    -- Delivered at commit to every hub process's HubChangeNotifier.
                    IF accepted_deletions + accepted_cells > 0 THEN
                        PERFORM pg_notify('logbook_hub', merging_stream::text);
                    END IF;
                END
                $merge$
                """
            ]),
        groupedMerge,
        pageFunction,
        statePageFunction,
        statePagePlans,
        streamEpochs,
        streamVersionHigh,
    ]

    /// Applies every migration the database lacks; returns the versions applied (empty when
    /// it was current). Refuses a database whose schema is newer than this build.
    @discardableResult
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [Int] {
        var applied: [Int] = []
        for migration in migrations {
            let ran = try await client.transaction(logger: logger) { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(advisoryLockKey))", logger: logger)
                // Inside the lock: concurrent CREATE TABLE IF NOT EXISTS can still collide.
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS logbook_schema_migrations (
                        version integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """, logger: logger)
                let newest = try await currentVersion(connection, logger: logger)
                guard newest <= latestVersion else {
                    throw HubError.schemaTooNew(database: newest, build: latestVersion)
                }
                guard newest < migration.version else { return false }
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO logbook_schema_migrations (version) VALUES (\(migration.version))",
                    logger: logger)
                return true
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    /// The newest migration applied, 0 for none.
    public static func currentVersion(_ client: PostgresClient, logger: Logger) async throws -> Int
    {
        try await client.withConnection { try await currentVersion($0, logger: logger) }
    }

    static func currentVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int
    {
        let exists = try await connection.query(
            "SELECT to_regclass('logbook_schema_migrations') IS NOT NULL", logger: logger)
        for try await (present) in exists.decode(Bool.self) where !present { return 0 }
        let rows = try await connection.query(
            "SELECT coalesce(max(version), 0) FROM logbook_schema_migrations", logger: logger)
        for try await version in rows.decode(Int.self) { return version }
        return 0
    }
}
