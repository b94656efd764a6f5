import Logbook
import LogbookCRDT

extension Logbook {
    /// Brings this replica's records of type `M` to the newest of `migrations`, once: the
    /// steps above the version this replica last reached run, in version order, on every
    /// record still below them, as ordinary CRDT writes that replicate like any other.
    /// Run it at launch, before the app reads `M`; a replica at the newest version reads
    /// one record and returns.
    ///
    /// Each slice of `recordsPerTransaction` records is one transaction, so a crash keeps
    /// whole slices; the replica's version is written with the last slice, so a migration
    /// cut short runs again on the next launch from where the records say it stopped (a
    /// record's `ModelMigration.versionColumn` holds its version). Writes by other tasks
    /// during the migration make a slice run again, as any transaction does.
    ///
    /// Safe on two replicas at once: a record is migrated only below a step's version, so
    /// a record another replica migrated (and this one merged) is not migrated again, and
    /// two replicas migrating one record at once write the same columns when the step is a
    /// function of the record. Records written later in an older shape (an older version of
    /// the app on another device) are read through `renamedColumns` and `columnDefaults`;
    /// that device's replica migrates them when it runs the new version.
    ///
    /// Throws `.invalidMigration` for versions repeated, below 1 or above `M.schemaVersion`,
    /// `.migrationFailed` when a step throws (its slice is not written).
    @discardableResult
    public nonisolated(nonsending) func migrate<M: LogbookModel>(
        _ type: M.Type, _ migrations: [ModelMigration<M>], recordsPerTransaction: Int = 256
    ) async throws(ModelError) -> MigrationReport {
        let steps = try Self.ordered(migrations)
        let markerId = MigrationMarker.recordId(of: nodeId)
        let reached = Int(getRecord(markerId)?.field(M.recordPrefix)?.intValue ?? 0)
        var report = MigrationReport(
            fromVersion: reached, toVersion: reached, recordsExamined: 0, recordsMigrated: 0,
            transactions: 0)
        guard let target = steps.last?.version, target > reached else { return report }
        let pending = steps.filter { $0.version > reached }
        let ids = records().keys.filter { $0.hasPrefix(M.recordPrefix) }.sorted()
        let slice = max(1, recordsPerTransaction)
        var start = 0
        repeat {
            let end = min(ids.count, start + slice)
            let isLast = end == ids.count
            let part = ids[start..<end]
            do {
                report.recordsMigrated += try await transaction { transaction in
                    var migrated = 0
                    for recordId in part {
                        if try Self.migrate(recordId, pending, in: &transaction) { migrated += 1 }
                    }
                    if isLast {
                        try transaction.insertOrUpdate(
                            markerId, fields: [(M.recordPrefix, .int(Int64(target)))])
                    }
                    return migrated
                }
            } catch {
                throw ModelError(transactionError: error)
            }
            report.recordsExamined += part.count
            report.transactions += 1
            start = end
        } while start < ids.count
        report.toVersion = target
        return report
    }

    /// The steps by version, checked.
    private static func ordered<M>(_ migrations: [ModelMigration<M>]) throws(ModelError)
        -> [ModelMigration<M>]
    {
        let steps = migrations.sorted { $0.version < $1.version }
        let model = String(describing: M.self)
        for (index, step) in steps.enumerated() {
            guard step.version >= 1, step.version <= M.schemaVersion else {
                throw .invalidMigration(
                    model: model,
                    reason: "version \(step.version) is outside 1...\(M.schemaVersion) "
                        + "(the model's schemaVersion)")
            }
            if index > 0, steps[index - 1].version == step.version {
                throw .invalidMigration(
                    model: model, reason: "version \(step.version) is given twice")
            }
        }
        return steps
    }

    /// Runs the steps above the record's version on it; false when it had none to run (or
    /// is gone).
    private static func migrate<M>(
        _ recordId: String, _ steps: [ModelMigration<M>], in transaction: inout Transaction
    ) throws(ModelError) -> Bool {
        guard let stored = transaction.fields(recordId) else { return false }
        let column = ModelMigration<M>.versionColumn
        let version = stored[column]?.intValue ?? 0
        let due = steps.filter { Int64($0.version) > version }
        guard let newest = due.last else { return false }
        var columns = stored
        for step in due { try step.rewrite(recordId, &columns) }
        columns[column] = .int(Int64(newest.version))
        let writes = ModelColumns.writes(
            recordId: recordId, stored: stored, encoded: columns, known: Set(stored.keys))
        try transaction.apply(writes, to: recordId)
        return true
    }
}

/// Where a replica notes how far it has migrated each model: one record per replica
/// (`$migrations/<node id>`), a column per model's record prefix holding the version. It
/// replicates like any record, and each replica reads only its own.
enum MigrationMarker {
    static func recordId(of node: NodeId) -> String { "$migrations/\(node)" }
}
