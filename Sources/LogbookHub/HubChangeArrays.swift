import Logbook
import LogbookCRDT
import PostgresNIO

/// A page's rows as `logbook_page` answers them (migration 5): one array per column, cells
/// as seven (`record_id`, `col_name`, `value`, `col_version`, `db_version`, `node_id`,
/// `hub_version`), tombstones as four (`record_id`, `db_version`, `node_id`,
/// `hub_version`), each in version order.
///
/// Arrays instead of a row per change: with a row each, postgres-nio's per-row work (a
/// `DataRow` decoded, an async step, a cell and a buffer slice per column) was most of a
/// pull's time in a profile, about three quarters of it beside the database's own. Every
/// array and element is checked (`PostgresBinaryArray`, `HubChangeRow`'s value rule).
enum HubChangeArrays {
    /// The cells in columns `first` to `first + 6` of `row`.
    static func cells(_ row: PostgresRow, from first: Int) throws -> [Change<String, String, Value>]
    {
        let columns = try arrays(
            row, from: first,
            [
                ("record_id", .bytea), ("col_name", .bytea), ("value", .bytea),
                ("col_version", .int8), ("db_version", .int8), ("node_id", .int8),
                ("hub_version", .int8),
            ])
        let (names, values, colVersions) = (columns[1], columns[2], columns[3])
        return try changes(
            ids: columns[0], dbVersions: columns[4], nodes: columns[5], versions: columns[6]
        ) {
            index, recordId in
            guard !names.isNull(index) else { throw HubError.corruptRow("col_name is null") }
            let value: Value? =
                values.isNull(index)
                ? nil
                : try values.withElement(index) { try HubChangeRow.decodeValue($0, of: recordId) }
            return (
                names.withElement(index) { String(decoding: $0, as: UTF8.self) }, value,
                HubColumns.version(stored: try colVersions.int64(index, column: "col_version"))
            )
        }
    }

    /// The tombstones in columns `first` to `first + 3` of `row`, as crdt-lite deletions.
    static func tombstones(_ row: PostgresRow, from first: Int) throws
        -> [Change<String, String, Value>]
    {
        let columns = try arrays(
            row, from: first,
            [
                ("record_id", .bytea), ("db_version", .int8), ("node_id", .int8),
                ("hub_version", .int8),
            ])
        return try changes(
            ids: columns[0], dbVersions: columns[1], nodes: columns[2], versions: columns[3]
        ) {
            _, _ in (nil, nil, tombstoneColumnVersion)
        }
    }

    private static func arrays(
        _ row: PostgresRow, from first: Int, _ columns: [(String, PostgresDataType)]
    ) throws -> [PostgresBinaryArray] {
        let cells = PostgresRandomAccessRow(row)
        guard cells.count >= first + columns.count else {
            throw HubError.corruptRow(
                "a page has \(cells.count) columns, not \(first + columns.count)")
        }
        let arrays = try columns.enumerated().map { offset, column in
            try PostgresBinaryArray(cells[first + offset], of: column.1, column: column.0)
        }
        guard arrays.allSatisfy({ $0.count == arrays[0].count }) else {
            throw HubError.corruptRow("a page's columns hold different numbers of rows")
        }
        return arrays
    }

    /// A change per element; `rest` gives its column, value and column version.
    private static func changes(
        ids: PostgresBinaryArray, dbVersions: PostgresBinaryArray, nodes: PostgresBinaryArray,
        versions: PostgresBinaryArray,
        _ rest: (Int, String) throws -> (String?, Value?, UInt64)
    ) throws -> [Change<String, String, Value>] {
        var changes: [Change<String, String, Value>] = []
        changes.reserveCapacity(ids.count)
        var ordered = true
        for index in 0..<ids.count {
            guard !ids.isNull(index) else { throw HubError.corruptRow("record_id is null") }
            let recordId = ids.withElement(index) { String(decoding: $0, as: UTF8.self) }
            let version = HubColumns.version(
                stored: try versions.int64(index, column: "hub_version"))
            if let last = changes.last, last.localDbVersion > version { ordered = false }
            let (column, value, colVersion) = try rest(index, recordId)
            changes.append(
                Change(
                    recordId: recordId, colName: column, value: value, colVersion: colVersion,
                    dbVersion: HubColumns.version(
                        stored: try dbVersions.int64(index, column: "db_version")),
                    nodeId: HubColumns.nodeId(stored: try nodes.int64(index, column: "node_id")),
                    localDbVersion: version, flags: 0))
        }
        // The aggregates take their input in the subquery's order, which PostgreSQL keeps in
        // practice but does not promise: sort (stably) if it ever did not.
        guard !ordered else { return changes }
        return changes.enumerated().sorted {
            ($0.element.localDbVersion, $0.offset) < ($1.element.localDbVersion, $1.offset)
        }.map(\.element)
    }
}
