import LogbookCRDT

extension Logbook {
    /// Runs `body` as a transaction: it reads through its `Transaction`, which sees its own
    /// writes, and its writes are made at once when it returns — in one batch of the log, so
    /// that a crash or power cut keeps all of them or none — then waits for the durability
    /// mode, as a single write does. Returns what `body` returned.
    ///
    /// Serializable by optimistic checks: the records the body read are checked at commit,
    /// under the engine's lock, and when any changed since (another write of this process,
    /// a merge from a peer), nothing is written and `body` runs again on what is there now,
    /// up to `attemptsMax` times; then `.conflict`. So `body` must do nothing but read and
    /// write through its transaction: it may run more than once. It runs outside the lock,
    /// so it may call the Logbook (its reads and writes are not part of the transaction).
    ///
    /// Refusals are reported, never dropped: a write the CRDT would refuse throws in the
    /// body (`Transaction`); an error thrown by `body` is rethrown and nothing is written.
    /// At commit, a column whose version would pass `ChangeLimits.versionMax` refuses the
    /// whole transaction (`.limitExceeded`), and so do writes that cannot be one batch of
    /// the log (16 MiB of changes; `.storage` with `.invalidArgument`).
    public nonisolated(nonsending) func transaction<Result>(
        attemptsMax: Int = 64, _ body: (inout Transaction) throws -> Result
    ) async throws -> Result {
        try await transactionWithChanges(attemptsMax: attemptsMax, body).result
    }

    /// `transaction(attemptsMax:_:)`, returning also the changes its commit made, in the
    /// order of the writes (none for a transaction that wrote nothing, or only what was
    /// there already).
    public nonisolated(nonsending) func transactionWithChanges<Result>(
        attemptsMax: Int = 64, _ body: (inout Transaction) throws -> Result
    ) async throws -> (result: Result, changes: [Change<String, String, Value>]) {
        for _ in 0..<max(1, attemptsMax) {
            var transaction = Transaction(logbook: self)
            let result = try body(&transaction)
            if let changes = try await commit(transaction) { return (result, changes) }
            await Task.yield()
        }
        throw LogbookError(
            .conflict,
            "the records a transaction read changed before each of its \(max(1, attemptsMax)) "
                + "commits; nothing of it was written")
    }

    /// Makes `transaction`'s writes in one batch when nothing it read changed, returning
    /// their changes; nil, with nothing written, when something did.
    private nonisolated(nonsending) func commit(_ transaction: Transaction)
        async throws(LogbookError) -> [Change<String, String, Value>]?
    {
        guard !transaction.writes.isEmpty else {
            return locked { unchanged(transaction.seen) } ? [] : nil
        }
        var conflicted = false
        let writes = transaction.writes
        let made = try await logged(together: true) { crdt throws(LogbookError) in
            guard unchanged(transaction.seen) else {
                conflicted = true
                return ([], nil)
            }
            try ChangeAdmission.checkClockRoom(
                clock: crdt.getClock().currentTime(), writes: writes.count)
            try Self.checkColumnVersionRoom(writes, in: crdt)
            for write in writes {
                guard case .insertOrUpdate(let recordId, _) = write else { continue }
                if isFenced(held: recordId) || crdt.isTombstoned(recordId) {
                    throw ChangeAdmission.deletedRecordRefusal(recordId: recordId)
                }
            }
            let fenced = fencedIds
            let outcome = crdt.write(
                writes, refusingColumnVersionsFrom: ChangeLimits.versionMax,
                refusingDeletedRecords: true,
                skipping: fenced.isEmpty ? { _ in false } : { fenced.contains($0) })
            // The checks above leave nothing for the CRDT to refuse; were one refused, the
            // writes before it are in the state and must be logged with it.
            return (outcome.changes, nil)
        }
        return conflicted ? nil : made.batch
    }

    /// True when every record in `seen` is as it was when read. Call under the lock.
    private func unchanged(_ seen: [String: RecordFingerprint]) -> Bool {
        seen.allSatisfy { recordId, fingerprint in
            RecordFingerprint.of(recordId, in: crdt, isFenced: isFenced(held: recordId))
                .fingerprint == fingerprint
        }
    }

    /// Refuses the writes when a column they write would take a version past
    /// `ChangeLimits.versionMax`: each write of a column raises its version by one.
    private static func checkColumnVersionRoom(_ writes: [LocalWrite], in crdt: ReplicaState)
        throws(LogbookError)
    {
        // Versions come near the limit only from a hostile peer: the counting below runs
        // only when some written column's version is within the writes' count of it.
        let threshold = ChangeLimits.versionMax - min(ChangeLimits.versionMax, UInt64(writes.count))
        let nearTheLimit = writes.contains { write in
            guard let record = crdt.getRecord(write.recordId) else { return false }
            var near = false
            record.forEachColumn { _, version, _ in near = near || version.colVersion >= threshold }
            return near
        }
        guard nearTheLimit else { return }
        var counts: [String: [String: UInt64]] = [:]
        for write in writes {
            switch write {
            case .insertOrUpdate(let recordId, let fields):
                for (column, _) in fields {
                    counts[recordId, default: [:]][column, default: 0] += 1
                }
            case .deleteField(let recordId, let fieldName):
                counts[recordId, default: [:]][fieldName, default: 0] += 1
            case .deleteRecord:
                continue
            }
        }
        for (recordId, columns) in counts {
            guard let record = crdt.getRecord(recordId) else { continue }
            for (column, count) in columns {
                let version = record.columnVersion(column)?.colVersion ?? 0
                guard
                    version >= ChangeLimits.versionMax || count > ChangeLimits.versionMax - version
                else { continue }
                throw ChangeAdmission.refusal(
                    ColumnVersionAtLimit(column: column, colVersion: version), recordId: recordId)
            }
        }
    }
}
