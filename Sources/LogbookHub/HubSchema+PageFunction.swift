/// Migration 5: a page of a stream's changes in one call, `logbook_page` (`HubPageReader`).
///
/// A page used to be a REPEATABLE READ transaction of eight round trips (begin, isolation,
/// planner settings, the stream's head, the page's last version, cells, tombstones,
/// commit); now it is one statement. The function is STABLE, so every query in it reads the
/// snapshot of the calling statement: the head, the boundary and the rows agree as they
/// did in the transaction. It answers one row — nothing when the stream does not exist —
/// with the stream's version and GC horizon, the page's last version (null: the page is
/// the rest of the stream), and the page's cells and tombstones as arrays in version
/// order; the arrays are null when the reader is below the horizon (it must resync from
/// the state) or the page is empty.
///
/// Both queries walk the version index: right after a burst of merges the planner's
/// statistics lag and it would pick a bitmap scan of the whole rest of the stream and a
/// sort instead (37 ms against 2 ms for a boundary on a 200,000-change stream), so the
/// function turns bitmap and sequential scans off for itself (`SET` on the function).
extension HubSchema {
    static let pageFunction = Migration(
        version: 5,
        statements: [
            """
            CREATE FUNCTION logbook_page(reading_stream bigint, since bigint, page_limit bigint)
            RETURNS TABLE (stream_version bigint, horizon bigint, last_version bigint,
                cell_ids bytea[], cell_columns bytea[], cell_values bytea[],
                cell_col_versions bigint[], cell_db_versions bigint[], cell_nodes bigint[],
                cell_versions bigint[], deleted_ids bytea[], deletion_db_versions bigint[],
                deletion_nodes bigint[], deletion_versions bigint[])
            LANGUAGE plpgsql STABLE
            SET enable_bitmapscan = off SET enable_seqscan = off
            AS $page$
            #variable_conflict use_column
            BEGIN
                SELECT s.hub_version, s.collected_below INTO stream_version, horizon
                FROM logbook_streams AS s WHERE s.stream_id = reading_stream;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                -- Tombstones below the horizon are gone: a reader that has not seen every
                -- version below it (and is not starting afresh) would miss a deletion.
                IF since > 0 AND horizon > 0 AND since < horizon - 1 THEN
                    RETURN NEXT;
                    RETURN;
                END IF;
                -- The version of the page_limit-th row past `since` in the table that
                -- reaches it first: rows up to it make whole versions, about page_limit.
                last_version := least(
                    (SELECT c.hub_version FROM logbook_cells AS c
                     WHERE c.stream_id = reading_stream AND c.hub_version > since
                     ORDER BY c.hub_version OFFSET page_limit - 1 LIMIT 1),
                    (SELECT t.hub_version FROM logbook_tombstones AS t
                     WHERE t.stream_id = reading_stream AND t.hub_version > since
                     ORDER BY t.hub_version OFFSET page_limit - 1 LIMIT 1));
                -- Each table in the order of its version index; the aggregates take their
                -- input in that order (the hub checks, and sorts if it ever did not).
                SELECT array_agg(p.record_id), array_agg(p.col_name), array_agg(p.value),
                    array_agg(p.col_version), array_agg(p.db_version), array_agg(p.node_id),
                    array_agg(p.hub_version)
                INTO cell_ids, cell_columns, cell_values, cell_col_versions, cell_db_versions,
                    cell_nodes, cell_versions
                FROM (SELECT c.* FROM logbook_cells AS c
                      WHERE c.stream_id = reading_stream AND c.hub_version > since
                          AND c.hub_version <= coalesce(last_version, 9223372036854775807)
                      ORDER BY c.hub_version) AS p;
                SELECT array_agg(p.record_id), array_agg(p.db_version), array_agg(p.node_id),
                    array_agg(p.hub_version)
                INTO deleted_ids, deletion_db_versions, deletion_nodes, deletion_versions
                FROM (SELECT t.* FROM logbook_tombstones AS t
                      WHERE t.stream_id = reading_stream AND t.hub_version > since
                          AND t.hub_version <= coalesce(last_version, 9223372036854775807)
                      ORDER BY t.hub_version) AS p;
                RETURN NEXT;
            END
            $page$
            """
        ])
}
