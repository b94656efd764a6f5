import Logbook
import LogbookCRDT

/// `logbook get DIR RECORD...`: the current state of the named records, with each
/// column's winning version (the state, where `export` gives the history).
package struct RecordsReport: CommandReport {
    package let command = "get"
    package var directory: String
    package var records: [RecordState]

    /// What the replica holds of a record.
    package enum Presence: String, Encodable, Equatable {
        /// Columns held (maybe all deleted).
        case live
        /// A tombstone.
        case deleted
        /// Never written here, or its tombstone collected.
        case absent
    }

    /// One record as the replica holds it now.
    package struct RecordState: Encodable, Equatable {
        package var id: String
        package var state: Presence
        /// Live records only, by column name; a deleted column has no `value`.
        package var columns: [ColumnState]?
    }

    /// A column's value and the version that won it.
    package struct ColumnState: Encodable, Equatable {
        package var name: String
        package var value: Value?
        package var colVersion: UInt64
        package var dbVersion: UInt64
        package var nodeId: UInt64
    }

    package init(directory: String, recordIds: [String], in logbook: Logbook) {
        self.directory = directory
        records = recordIds.map { id in
            guard let record = logbook.getRecord(id) else {
                return RecordState(id: id, state: logbook.isTombstoned(id) ? .deleted : .absent)
            }
            var columns: [ColumnState] = []
            record.forEachColumn { name, version, value in
                columns.append(
                    ColumnState(
                        name: name, value: value, colVersion: version.colVersion,
                        dbVersion: version.dbVersion, nodeId: version.nodeId))
            }
            columns.sort { $0.name < $1.name }
            return RecordState(id: id, state: .live, columns: columns)
        }
    }

    package var text: String {
        var lines: [String] = []
        for record in records {
            guard record.state == .live else {
                lines.append("\(terminalSafe(record.id))  (\(record.state.rawValue))")
                continue
            }
            let columns = record.columns ?? []
            for column in columns {
                lines.append(
                    describe(
                        recordId: record.id, column: column.name, value: column.value,
                        colVersion: column.colVersion, dbVersion: column.dbVersion,
                        nodeId: column.nodeId))
            }
            if columns.isEmpty { lines.append("\(terminalSafe(record.id))  (live, no columns)") }
        }
        return lines.joined(separator: "\n")
    }
}
