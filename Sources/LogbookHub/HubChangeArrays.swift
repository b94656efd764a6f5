import Logbook
import LogbookCRDT
import PostgresNIO

/// A page's rows as `logbook_page` (migration 5) and `logbook_state_page` (migration 6)
/// answer them: one array per column, cells as seven (`record_id`, `col_name`, `value`,
/// `col_version`, `db_version`, `node_id`, `hub_version`), tombstones as four (`record_id`,
/// `db_version`, `node_id`, `hub_version`), each in version or record id order.
///
/// Arrays instead of a row per change: with a row each, postgres-nio's per-row work (a
/// `DataRow` decoded, an async step, a cell and a buffer slice per column) was most of a
/// pull's time in a profile, about three quarters of it beside the database's own. Every
/// array and element is checked (`PostgresBinaryArray`, and a value must decode and fill
/// its element exactly).
enum HubChangeArrays {
    /// The order a function's aggregates give their arrays.
    enum Order {
        /// Hub version (pages of changes).
        case version
        /// Record id as bytes, then column (pages of state); a deletion has no column.
        case recordId
    }

    /// The one row a page function (`function`) answers, holding `columns` columns; a
    /// stream that does not exist gets no row.
    static func onlyRow(
        _ rows: PostgresRowSequence, of function: String, columns: Int, stream: HubStream
    ) async throws -> PostgresRow {
        var only: PostgresRow?
        for try await row in rows {
            guard only == nil else {
                throw HubError.corruptRow("\(function) answered several rows")
            }
            // postgres-nio traps when a row has fewer columns than a tuple decodes.
            let count = PostgresRandomAccessRow(row).count
            guard count == columns else {
                throw HubError.corruptRow("\(function) answered \(count) columns, not \(columns)")
            }
            only = row
        }
        guard let only else { throw HubError.unknownStream(stream.name) }
        return only
    }

    /// The cells in columns `first` to `first + 6` of `row`, in `order`.
    static func cells(_ row: PostgresRow, from first: Int, in order: Order) throws
        -> [Change<String, String, Value>]
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
            ids: columns[0], dbVersions: columns[4], nodes: columns[5], versions: columns[6],
            in: order
        ) {
            index, recordId in
            guard !names.isNull(index) else { throw HubError.corruptRow("col_name is null") }
            let value: Value? =
                values.isNull(index)
                ? nil
                : try values.withElement(index) { try decodeValue($0, of: recordId) }
            return (
                names.withElement(index) { String(decoding: $0, as: UTF8.self) }, value,
                HubColumns.version(stored: try colVersions.int64(index, column: "col_version"))
            )
        }
    }

    /// The tombstones in columns `first` to `first + 3` of `row`, as crdt-lite deletions, in
    /// `order`.
    static func tombstones(_ row: PostgresRow, from first: Int, in order: Order) throws
        -> [Change<String, String, Value>]
    {
        let columns = try arrays(
            row, from: first,
            [
                ("record_id", .bytea), ("db_version", .int8), ("node_id", .int8),
                ("hub_version", .int8),
            ])
        return try changes(
            ids: columns[0], dbVersions: columns[1], nodes: columns[2], versions: columns[3],
            in: order
        ) {
            _, _ in (nil, nil, tombstoneColumnVersion)
        }
    }

    /// A value in the log's binary form, which must fill `bytes` exactly.
    private static func decodeValue(_ bytes: UnsafeRawBufferPointer, of recordId: String) throws
        -> Value
    {
        var position = 0
        let read = ValueCodec.read(bytes, at: &position, depth: 0)
        guard let decoded = position == bytes.count ? read : nil else {
            throw HubError.corruptRow(
                "the value of record \(ChangeAdmission.quoted(recordId)) does not decode")
        }
        return decoded
    }

    /// Cells and deletions, each in `order`, as one list in `order`; at a tie (one version)
    /// the cells come first.
    static func merged(
        _ cells: [Change<String, String, Value>], _ deletions: [Change<String, String, Value>],
        in order: Order
    ) -> [Change<String, String, Value>] {
        guard !deletions.isEmpty else { return cells }
        var merged: [Change<String, String, Value>] = []
        merged.reserveCapacity(cells.count + deletions.count)
        var next = deletions.makeIterator()
        var deletion = next.next()
        for cell in cells {
            while let pending = deletion, precedes(pending, cell, in: order) {
                merged.append(pending)
                deletion = next.next()
            }
            merged.append(cell)
        }
        while let pending = deletion {
            merged.append(pending)
            deletion = next.next()
        }
        return merged
    }

    /// Whether `a` comes before `b` in `order`.
    static func precedes(
        _ a: Change<String, String, Value>, _ b: Change<String, String, Value>, in order: Order
    ) -> Bool {
        switch order {
        case .version: return a.localDbVersion < b.localDbVersion
        case .recordId:
            // As PostgreSQL orders bytea: bytes, then length; a deletion (no column) first.
            // One walk over both ids, as this runs once per change of a state page.
            var aBytes = a.recordId.utf8.makeIterator()
            var bBytes = b.recordId.utf8.makeIterator()
            while let x = aBytes.next() {
                guard let y = bBytes.next() else { return false }  // b's id is a's prefix
                if x != y { return x < y }
            }
            if bBytes.next() != nil { return true }  // a's id is b's prefix
            guard let bColumn = b.colName else { return false }
            guard let aColumn = a.colName else { return true }
            return aColumn.utf8.lexicographicallyPrecedes(bColumn.utf8)
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
        versions: PostgresBinaryArray, in order: Order,
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
            let (column, value, colVersion) = try rest(index, recordId)
            let change = Change(
                recordId: recordId, colName: column, value: value, colVersion: colVersion,
                dbVersion: HubColumns.version(
                    stored: try dbVersions.int64(index, column: "db_version")),
                nodeId: HubColumns.nodeId(stored: try nodes.int64(index, column: "node_id")),
                localDbVersion: version, flags: 0)
            if let last = changes.last, precedes(change, last, in: order) { ordered = false }
            changes.append(change)
        }
        // The aggregates take their input in the subquery's order, which PostgreSQL keeps in
        // practice but does not promise: sort (stably) if it ever did not.
        guard !ordered else { return changes }
        return changes.enumerated().sorted {
            precedes($0.element, $1.element, in: order)
                || (!precedes($1.element, $0.element, in: order) && $0.offset < $1.offset)
        }.map(\.element)
    }
}
