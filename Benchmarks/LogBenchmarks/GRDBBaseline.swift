import Foundation
import GRDB
import Logbook
import LogbookCRDT

/// The SQLite baseline through GRDB: a changes table in WAL mode, inserts batched 10,000
/// per transaction, replay by a full scan into the same CRDT. Values are stored in Logbook's
/// binary form so both sides encode the same bytes.
enum GRDBBaseline {
    static func write(_ changes: [Change<String, String, Value>], to path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { database in
            try database.execute(
                sql: """
                    CREATE TABLE changes (record_id TEXT NOT NULL, col_name TEXT, value BLOB, col_version INTEGER NOT NULL,
                      db_version INTEGER NOT NULL, node_id INTEGER NOT NULL, local_db_version INTEGER NOT NULL, flags INTEGER NOT NULL)
                    """)
        }
        var buffer: [UInt8] = []
        for start in stride(from: 0, to: changes.count, by: 10_000) {
            try queue.inTransaction { database in
                let statement = try database.makeStatement(
                    sql: "INSERT INTO changes VALUES (?,?,?,?,?,?,?,?)")
                for change in changes[start..<min(start + 10_000, changes.count)] {
                    var blob: DatabaseValueConvertible? = nil
                    if let value = change.value {
                        buffer.removeAll(keepingCapacity: true)
                        ValueCodec.append(value, to: &buffer)
                        blob = Data(buffer)
                    }
                    try statement.execute(arguments: [
                        change.recordId, change.colName, blob, Int64(bitPattern: change.colVersion),
                        Int64(bitPattern: change.dbVersion), Int64(bitPattern: change.nodeId),
                        Int64(bitPattern: change.localDbVersion), Int64(change.flags),
                    ])
                }
                return .commit
            }
        }
    }

    static func replay(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        let crdt = CRDT<String, String, Value>(nodeId: 1)
        var count = 0
        try queue.read { database in
            let rows = try Row.fetchCursor(database, sql: "SELECT * FROM changes ORDER BY rowid")
            var batch: [Change<String, String, Value>] = []
            while let row = try rows.next() {
                var change = Change<String, String, Value>(
                    recordId: row[0], colName: row[1], value: nil,
                    colVersion: UInt64(bitPattern: row[3] as Int64),
                    dbVersion: UInt64(bitPattern: row[4] as Int64),
                    nodeId: UInt64(bitPattern: row[5] as Int64),
                    localDbVersion: UInt64(bitPattern: row[6] as Int64),
                    flags: UInt32(truncatingIfNeeded: row[7] as Int64))
                if let data = row[2] as Data? {
                    change.value = data.withUnsafeBytes { bytes in
                        var position = 0
                        return ValueCodec.read(bytes, at: &position, depth: 0)
                    }
                }
                batch.append(change)
                count += 1
                if batch.count == 10_000 {
                    crdt.restore(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            crdt.restore(batch)
        }
        return count
    }
}
