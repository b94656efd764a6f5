import CSQLite
import Foundation
import Logbook
import LogbookCRDT

/// What a user would otherwise pick: the same changes in an SQLite table (WAL mode,
/// `synchronous=NORMAL`, 10,000 changes per transaction), and replay as a full scan into
/// the same CRDT. Values are stored in Logbook's compact binary form, so both sides encode
/// the same bytes.
struct SQLiteBaseline {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let path: String

    /// Inserts every change; returns seconds and the database's bytes on disk.
    func append(_ changes: [Change<String, String, Value>]) throws -> (
        seconds: Double, bytes: Int64
    ) {
        try? FileManager.default.removeItem(atPath: path)
        let database = try open()
        defer { sqlite3_close(database) }
        try execute(database, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        try execute(
            database,
            """
            CREATE TABLE changes (record_id TEXT NOT NULL, col_name TEXT, value BLOB, col_version INTEGER NOT NULL,
              db_version INTEGER NOT NULL, node_id INTEGER NOT NULL, local_db_version INTEGER NOT NULL, flags INTEGER NOT NULL);
            """)
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                database, "INSERT INTO changes VALUES (?,?,?,?,?,?,?,?)", -1, &statement, nil)
                == SQLITE_OK
        else { throw failure(database) }
        defer { sqlite3_finalize(statement) }
        let started = ContinuousClock.now
        var buffer: [UInt8] = []
        for (index, change) in changes.enumerated() {
            if index % 10_000 == 0 {
                if index > 0 { try execute(database, "COMMIT") }
                try execute(database, "BEGIN")
            }
            sqlite3_bind_text(statement, 1, change.recordId, -1, sqliteTransient)
            if let column = change.colName {
                sqlite3_bind_text(statement, 2, column, -1, sqliteTransient)
            } else {
                sqlite3_bind_null(statement, 2)
            }
            if let value = change.value {
                buffer.removeAll(keepingCapacity: true)
                ValueCodec.append(value, to: &buffer)
                _ = buffer.withUnsafeBytes {
                    sqlite3_bind_blob(
                        statement, 3, $0.baseAddress, Int32($0.count), sqliteTransient)
                }
            } else {
                sqlite3_bind_null(statement, 3)
            }
            sqlite3_bind_int64(statement, 4, Int64(bitPattern: change.colVersion))
            sqlite3_bind_int64(statement, 5, Int64(bitPattern: change.dbVersion))
            sqlite3_bind_int64(statement, 6, Int64(bitPattern: change.nodeId))
            sqlite3_bind_int64(statement, 7, Int64(bitPattern: change.localDbVersion))
            sqlite3_bind_int64(statement, 8, Int64(change.flags))
            guard sqlite3_step(statement) == SQLITE_DONE else { throw failure(database) }
            sqlite3_reset(statement)
        }
        try execute(database, "COMMIT")
        let seconds = (ContinuousClock.now - started).seconds
        try execute(database, "PRAGMA wal_checkpoint(TRUNCATE);")
        return (seconds, fileSize(path) + fileSize(path + "-wal"))
    }

    /// Reads every row in insertion order into a fresh CRDT; returns seconds and rows.
    func replay() throws -> (seconds: Double, changes: Int) {
        let database = try open()
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                database, "SELECT * FROM changes ORDER BY rowid", -1, &statement, nil) == SQLITE_OK
        else {
            throw failure(database)
        }
        defer { sqlite3_finalize(statement) }
        let started = ContinuousClock.now
        let crdt = CRDT<String, String, Value>(nodeId: 1)
        var batch: [Change<String, String, Value>] = []
        var count = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            var change = Change<String, String, Value>(
                recordId: text(statement, 0) ?? "", colName: text(statement, 1), value: nil,
                colVersion: UInt64(bitPattern: sqlite3_column_int64(statement, 3)),
                dbVersion: UInt64(bitPattern: sqlite3_column_int64(statement, 4)),
                nodeId: UInt64(bitPattern: sqlite3_column_int64(statement, 5)),
                localDbVersion: UInt64(bitPattern: sqlite3_column_int64(statement, 6)),
                flags: UInt32(truncatingIfNeeded: sqlite3_column_int64(statement, 7)))
            if let blob = sqlite3_column_blob(statement, 2) {
                let bytes = UnsafeRawBufferPointer(
                    start: blob, count: Int(sqlite3_column_bytes(statement, 2)))
                var position = 0
                change.value = ValueCodec.read(bytes, at: &position, depth: 0)
            }
            batch.append(change)
            count += 1
            if batch.count == 10_000 {
                crdt.restore(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        crdt.restore(batch)
        return ((ContinuousClock.now - started).seconds, count)
    }

    private func open() throws -> OpaquePointer? {
        var database: OpaquePointer?
        guard sqlite3_open(path, &database) == SQLITE_OK else {
            defer { sqlite3_close(database) }
            throw failure(database)
        }
        return database
    }

    private func execute(_ database: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw failure(database)
        }
    }

    private func failure(_ database: OpaquePointer?) -> Failure {
        Failure(description: "sqlite: \(String(cString: sqlite3_errmsg(database)))")
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}

/// SQLite's SQLITE_TRANSIENT: copy the bound bytes now.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Bytes of a file, 0 if absent.
func fileSize(_ path: String) -> Int64 {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
}
