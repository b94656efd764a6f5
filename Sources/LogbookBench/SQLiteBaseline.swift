import Foundation
import GRDB
import Logbook
import LogbookCRDT

/// What a user would otherwise pick: the same changes in an SQLite table through GRDB (WAL
/// mode, `synchronous=NORMAL`, 10,000 changes per transaction), and replay as a full scan
/// into the same CRDT. Values are stored in Logbook's compact binary form, so both sides
/// encode the same bytes. `logbook bench` and the package-benchmark suites in `Benchmarks/`
/// share this one baseline.
public struct SQLiteBaseline: Sendable {
    /// Changes per transaction while appending.
    public static let transactionChanges = 10_000

    /// The database file; it and its `-wal` and `-shm` companions are replaced by `append`.
    public let path: String

    /// A baseline keeping its database at `path`.
    public init(path: String) {
        self.path = path
    }

    /// Inserts every change into a fresh database; returns the seconds the inserts took and
    /// the database's bytes on disk after a checkpoint.
    public func append(_ changes: [Change<String, String, Value>]) throws -> (
        seconds: Double, bytes: Int64
    ) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        let queue = try DatabaseQueue(path: path, configuration: Self.configuration())
        try queue.write { database in
            try database.execute(
                sql: """
                    CREATE TABLE changes (record_id TEXT NOT NULL, col_name TEXT, value BLOB,
                      col_version INTEGER NOT NULL, db_version INTEGER NOT NULL,
                      node_id INTEGER NOT NULL, local_db_version INTEGER NOT NULL,
                      flags INTEGER NOT NULL)
                    """)
        }
        let started = ContinuousClock.now
        var buffer: [UInt8] = []
        for start in stride(from: 0, to: changes.count, by: Self.transactionChanges) {
            let end = min(start + Self.transactionChanges, changes.count)
            try queue.inTransaction { database in
                let statement = try database.cachedStatement(
                    sql: "INSERT INTO changes VALUES (?,?,?,?,?,?,?,?)")
                for change in changes[start..<end] {
                    var blob: Data?
                    if let value = change.value {
                        buffer.removeAll(keepingCapacity: true)
                        ValueCodec.append(value, to: &buffer)
                        blob = Data(buffer)
                    }
                    try statement.execute(arguments: [
                        change.recordId, change.colName, blob,
                        Int64(bitPattern: change.colVersion), Int64(bitPattern: change.dbVersion),
                        Int64(bitPattern: change.nodeId), Int64(bitPattern: change.localDbVersion),
                        Int64(change.flags),
                    ])
                }
                return .commit
            }
        }
        let seconds = (ContinuousClock.now - started).seconds
        try queue.writeWithoutTransaction { database in
            try database.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try queue.close()
        return (seconds, fileSize(path) + fileSize(path + "-wal"))
    }

    /// Reads every row in insertion order into a fresh CRDT; returns seconds and rows.
    public func replay() throws -> (seconds: Double, changes: Int) {
        let queue = try DatabaseQueue(path: path, configuration: Self.configuration())
        defer { try? queue.close() }
        let started = ContinuousClock.now
        let crdt = CRDT<String, String, Value>(nodeId: 1)
        var count = 0
        try queue.read { database in
            let rows = try Row.fetchCursor(database, sql: "SELECT * FROM changes ORDER BY rowid")
            var batch: [Change<String, String, Value>] = []
            while let row = try rows.next() {
                batch.append(Self.change(from: row))
                count += 1
                if batch.count == Self.transactionChanges {
                    crdt.restore(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            crdt.restore(batch)
        }
        return ((ContinuousClock.now - started).seconds, count)
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { database in
            try database.execute(sql: "PRAGMA synchronous=NORMAL")
        }
        return configuration
    }

    /// A row this baseline wrote, back as a change; a value that does not decode is nil, as
    /// the log's reader would refuse it rather than guess.
    private static func change(from row: Row) -> Change<String, String, Value> {
        let integer: (Int) -> Int64 = { column in (row[column] as Int64?) ?? 0 }
        var change = Change<String, String, Value>(
            recordId: (row[0] as String?) ?? "", colName: row[1], value: nil,
            colVersion: UInt64(bitPattern: integer(3)), dbVersion: UInt64(bitPattern: integer(4)),
            nodeId: UInt64(bitPattern: integer(5)),
            localDbVersion: UInt64(bitPattern: integer(6)),
            flags: UInt32(truncatingIfNeeded: integer(7)))
        if let data = row[2] as Data? {
            change.value = data.withUnsafeBytes { bytes in
                var position = 0
                return ValueCodec.read(bytes, at: &position, depth: 0)
            }
        }
        return change
    }
}

/// Bytes of a file, 0 if absent.
func fileSize(_ path: String) -> Int64 {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
}
