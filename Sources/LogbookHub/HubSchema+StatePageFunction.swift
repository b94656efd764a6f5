/// Migration 6: a page of a stream's state in one call, `logbook_state_page`
/// (`HubStateReader`), as migration 5 did for pages of changes.
///
/// A state page (what a node that must resync reads, `GET streams/S/snapshot`) was a
/// REPEATABLE READ transaction of five round trips, and its rows came one per change
/// through postgres-nio's per-row path, the cost that made pulls 2.1 times slower before
/// migration 5. The function is STABLE, so the stream's version, the boundary and the rows
/// come from one snapshot. It answers one row, nothing when the stream does not exist: the
/// stream's version, the page's last record id (null: the page is the rest of the state),
/// and the page's cells and tombstones as arrays, each in record id order (bytes compare
/// as UTF-8 orders code points, so that is the order of the ids' strings).
extension HubSchema {
    static let statePageFunction = Migration(
        version: 6,
        statements: [
            """
            CREATE FUNCTION logbook_state_page(reading_stream bigint, after_id bytea,
                page_limit bigint)
            RETURNS TABLE (stream_version bigint, last_id bytea,
                cell_ids bytea[], cell_columns bytea[], cell_values bytea[],
                cell_col_versions bigint[], cell_db_versions bigint[], cell_nodes bigint[],
                cell_versions bigint[], deleted_ids bytea[], deletion_db_versions bigint[],
                deletion_nodes bigint[], deletion_versions bigint[])
            LANGUAGE plpgsql STABLE
            AS $state$
            #variable_conflict use_column
            BEGIN
                SELECT s.hub_version INTO stream_version
                FROM logbook_streams AS s WHERE s.stream_id = reading_stream;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                -- The id of the page_limit-th row after after_id in the table that reaches
                -- it first: the page ends with that record, so records are never split.
                last_id := least(
                    (SELECT c.record_id FROM logbook_cells AS c
                     WHERE c.stream_id = reading_stream
                         AND (after_id IS NULL OR c.record_id > after_id)
                     ORDER BY c.record_id, c.col_name OFFSET page_limit - 1 LIMIT 1),
                    (SELECT t.record_id FROM logbook_tombstones AS t
                     WHERE t.stream_id = reading_stream
                         AND (after_id IS NULL OR t.record_id > after_id)
                     ORDER BY t.record_id OFFSET page_limit - 1 LIMIT 1));
                SELECT array_agg(p.record_id), array_agg(p.col_name), array_agg(p.value),
                    array_agg(p.col_version), array_agg(p.db_version), array_agg(p.node_id),
                    array_agg(p.hub_version)
                INTO cell_ids, cell_columns, cell_values, cell_col_versions, cell_db_versions,
                    cell_nodes, cell_versions
                FROM (SELECT c.* FROM logbook_cells AS c
                      WHERE c.stream_id = reading_stream
                          AND (after_id IS NULL OR c.record_id > after_id)
                          AND (last_id IS NULL OR c.record_id <= last_id)
                      ORDER BY c.record_id, c.col_name) AS p;
                SELECT array_agg(p.record_id), array_agg(p.db_version), array_agg(p.node_id),
                    array_agg(p.hub_version)
                INTO deleted_ids, deletion_db_versions, deletion_nodes, deletion_versions
                FROM (SELECT t.* FROM logbook_tombstones AS t
                      WHERE t.stream_id = reading_stream
                          AND (after_id IS NULL OR t.record_id > after_id)
                          AND (last_id IS NULL OR t.record_id <= last_id)
                      ORDER BY t.record_id) AS p;
                RETURN NEXT;
            END
            $state$
            """
        ])
}

/// Migration 7: `logbook_state_page` plans each call for its own bounds.
///
/// Both plans PostgreSQL chose were wrong for paging (auto_explain, a page of 1,000 rows
/// 2,000 rows into a 20,000-row stream): the first five calls' custom plans found the
/// page's boundary with a bitmap scan of every row after `after_id` (17,995) and a sort,
/// 11–14 ms; from the sixth call PL/pgSQL kept a generic plan, which cannot bound an index
/// scan by a parameter that may be NULL (`after_id IS NULL OR record_id > after_id`), so it
/// walked the stream from its first row and filtered (2,005 rows removed), 4.3 ms there and
/// more the further a reader gets. With custom plans and no bitmap or sequential scans the
/// boundary is an index scan from `after_id` that reads the page's 1,000 rows: 2.3 ms.
/// Paging a 200,000-change state (`logbook bench hub`) read 119–237 k changes/s in six runs
/// before and 468 and 506 k/s after.
extension HubSchema {
    static let statePagePlans = Migration(
        version: 7,
        statements: [
            """
            ALTER FUNCTION logbook_state_page(bigint, bytea, bigint)
                SET plan_cache_mode = force_custom_plan
            """,
            """
            ALTER FUNCTION logbook_state_page(bigint, bytea, bigint) SET enable_bitmapscan = off
            """,
            """
            ALTER FUNCTION logbook_state_page(bigint, bytea, bigint) SET enable_seqscan = off
            """,
        ])
}
