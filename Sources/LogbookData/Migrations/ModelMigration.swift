import LogbookCRDT

/// One step in the shape of a model's records: what turns a record written before
/// `version` into one of `version`. `Logbook.migrate(_:_:recordsPerTransaction:)` runs the
/// steps a replica has not run yet, as ordinary CRDT writes.
///
/// A record carries the version it is in (the column `versionColumn`, written by the
/// migration and by a save of a new record), and a step runs only on records below its
/// version: a record another replica migrated and this one received is not migrated twice,
/// and two replicas migrating the same record at once write the same columns from the same
/// record, so they agree as long as the step is a function of the record (no clock, no
/// random ids).
public struct ModelMigration<M: LogbookModel>: Sendable {
    /// The version this step brings a record to (1 or more, at most `M.schemaVersion`).
    public let version: Int
    /// Rewrites one record's columns in place.
    let rewrite:
        @Sendable (_ recordId: String, _ columns: inout [String: Value]) throws(ModelError)
            -> Void

    /// The column that holds the version a record's shape is in.
    public static var versionColumn: String { "$schema" }

    /// A step that edits the model: the record is decoded (with `M.renamedColumns` and
    /// `M.columnDefaults`), `migrate` edits it, and the columns that differ are written. For
    /// records the current model cannot decode, use `init(version:columns:)`.
    public init(version: Int, _ migrate: @escaping @Sendable (inout M) throws -> Void) {
        self.version = version
        self.rewrite = { recordId, columns throws(ModelError) in
            var model = try ModelColumns.decode(M.self, recordId: recordId, columns: columns)
            let id = model.id
            do {
                try migrate(&model)
            } catch {
                throw .migrationFailed(recordId: recordId, version: version, reason: "\(error)")
            }
            guard model.id == id else {
                throw .migrationFailed(
                    recordId: recordId, version: version, reason: "the migration changed the id")
            }
            let encoded = try ModelColumns.encode(model)
            let known = try ModelColumns.knownColumns(M.self, recordId: recordId, encoded: encoded)
            for name in columns.keys
            where ModelColumns.isErased(name, encoded: encoded, known: known) {
                columns[name] = nil
            }
            columns.merge(encoded) { _, new in new }
        }
    }

    /// A step that edits the record's columns themselves: add, change or remove any (a
    /// removed column is erased). For shapes the current model cannot read.
    public init(
        version: Int, columns migrate: @escaping @Sendable (inout [String: Value]) throws -> Void
    ) {
        self.version = version
        self.rewrite = { recordId, columns throws(ModelError) in
            do {
                try migrate(&columns)
            } catch {
                throw .migrationFailed(recordId: recordId, version: version, reason: "\(error)")
            }
        }
    }
}

/// What `Logbook.migrate(_:_:recordsPerTransaction:)` did.
public struct MigrationReport: Equatable, Sendable {
    /// The version this replica had reached before (0: none).
    public var fromVersion: Int
    /// The version it has reached now.
    public var toVersion: Int
    /// The model's records read.
    public var recordsExamined: Int
    /// The records a step ran on (the others were already in the newest shape).
    public var recordsMigrated: Int
    /// The transactions written (each one batch of the log).
    public var transactions: Int
}
