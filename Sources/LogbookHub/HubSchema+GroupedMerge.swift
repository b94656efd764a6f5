/// Migration 4: a merge of many pushes at once, and no per-row foreign-key checks.
///
/// - The foreign keys from `logbook_cells` and `logbook_tombstones` to `logbook_streams`
///   go. PostgreSQL checks a foreign key with one trigger call per inserted row: 95 of the
///   224 ms a merge of 10,000 new cells took (`EXPLAIN ANALYZE`, docs/hub.md "Measured").
///   Integrity holds without them: every write of those tables is a merge, which first
///   updates its stream's row and stops when there is none, and keeps that row locked
///   until it commits, so a stream deleted meanwhile waits for it. A trigger on
///   `logbook_streams` deletes a removed stream's cells and tombstones, as the cascade did.
/// - `logbook_merge_pushes` is `logbook_merge` over the reduced union of several pushes
///   (`HubBatch`), each change tagged with its push; it answers one row with the merge's
///   version (push -1) and one per push that had something accepted, with its counts. The
///   hub calls it when pushes into one stream arrive while a merge of it is under way
///   (`HubMergeQueue`): one lock, one statement and one commit for all of them.
extension HubSchema {
    static let groupedMerge = Migration(
        version: 4,
        statements: [
            "ALTER TABLE logbook_cells DROP CONSTRAINT IF EXISTS logbook_cells_stream_id_fkey",
            """
            ALTER TABLE logbook_tombstones
                DROP CONSTRAINT IF EXISTS logbook_tombstones_stream_id_fkey
            """,
            """
            CREATE FUNCTION logbook_drop_stream_rows() RETURNS trigger
            LANGUAGE plpgsql AS $drop$
            BEGIN
                DELETE FROM logbook_cells WHERE stream_id = OLD.stream_id;
                DELETE FROM logbook_tombstones WHERE stream_id = OLD.stream_id;
                RETURN OLD;
            END
            $drop$
            """,
            """
            CREATE TRIGGER logbook_streams_drop_rows AFTER DELETE ON logbook_streams
                FOR EACH ROW EXECUTE FUNCTION logbook_drop_stream_rows()
            """,
            """
            CREATE FUNCTION logbook_merge_pushes(
                merging_stream bigint,
                deleted_ids bytea[], deletion_versions bigint[], deletion_nodes bigint[],
                deletion_pushes integer[],
                cell_ids bytea[], cell_columns bytea[], cell_values bytea[],
                cell_has_value boolean[], cell_col_versions bigint[],
                cell_db_versions bigint[], cell_nodes bigint[], cell_pushes integer[])
            RETURNS TABLE (merge_version bigint, push integer, accepted_deletions bigint,
                dropped_cells bigint, accepted_cells bigint)
            LANGUAGE plpgsql VOLATILE AS $merge$
            #variable_conflict use_column
            DECLARE
                taken bigint;
                returned bigint;
            BEGIN
                UPDATE logbook_streams SET hub_version = hub_version + 1
                WHERE stream_id = merging_stream RETURNING hub_version INTO taken;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                RETURN QUERY
                WITH deletion AS (
                    SELECT * FROM unnest(deleted_ids, deletion_versions, deletion_nodes,
                        deletion_pushes) AS d(record_id, db_version, node_id, push)
                ),
                tombstoned AS (
                    INSERT INTO logbook_tombstones
                        (stream_id, record_id, db_version, node_id, hub_version)
                    SELECT merging_stream, record_id, db_version, node_id, taken
                    FROM deletion
                    ON CONFLICT (stream_id, record_id) DO NOTHING
                    RETURNING record_id
                ),
                dropped AS (
                    DELETE FROM logbook_cells AS cell USING tombstoned
                    WHERE cell.stream_id = merging_stream
                        AND cell.record_id = tombstoned.record_id
                    RETURNING cell.record_id
                ),
                incoming AS (
                    SELECT * FROM unnest(cell_ids, cell_columns, cell_values, cell_has_value,
                        cell_col_versions, cell_db_versions, cell_nodes, cell_pushes)
                        AS c(record_id, col_name, value, has_value, col_version, db_version,
                            node_id, push)
                ),
                written AS (
                    INSERT INTO logbook_cells AS held (stream_id, record_id, col_name, value,
                        col_version, db_version, node_id, hub_version)
                    SELECT merging_stream, record_id, col_name,
                        CASE WHEN has_value THEN value END,
                        col_version, db_version, node_id, taken
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
                    RETURNING held.record_id, held.col_name
                ),
                -- The batch holds one deletion per record and one change per cell, so
                -- each accepted row names one push.
                counted AS (
                    SELECT d.push, 1 AS kind FROM tombstoned JOIN deletion AS d USING (record_id)
                    UNION ALL
                    SELECT d.push, 2 FROM dropped JOIN deletion AS d USING (record_id)
                    UNION ALL
                    SELECT c.push, 3 FROM written JOIN incoming AS c USING (record_id, col_name)
                )
                SELECT taken, push, count(*) FILTER (WHERE kind = 1),
                    count(*) FILTER (WHERE kind = 2), count(*) FILTER (WHERE kind = 3)
                FROM (SELECT -1 AS push, 0 AS kind UNION ALL SELECT * FROM counted) AS every
                GROUP BY push;
                -- A row beyond push -1's means something was accepted. Delivered at commit
                -- to every hub process's HubChangeNotifier.
                GET DIAGNOSTICS returned = ROW_COUNT;
                IF returned > 1 THEN
                    PERFORM pg_notify('logbook_hub', merging_stream::text);
                END IF;
            END
            $merge$
            """,
        ])
}
