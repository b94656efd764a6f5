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
            // No write here sets fields of a deleted record: each one's record was read when
            // it was made (`Transaction.insertOrUpdate`), found live, and `unchanged` has
            // just found it as it was.
            return (try writeChecked(writes, into: crdt), nil)
        }
        return conflicted ? nil : made.batch
    }

    /// Makes `writes` of live records in `crdt` once the clock and every column they write
    /// have room for them (else refuses them all, nothing made); returns their changes. For
    /// writes made whole (a transaction, derived writes). Call under the lock.
    func writeChecked(_ writes: [LocalWrite], into crdt: ReplicaState) throws(LogbookError)
        -> [Change<String, String, Value>]
    {
        try ChangeAdmission.checkClockRoom(
            clock: crdt.getClock().currentTime(), writes: writes.count)
        try Self.checkColumnVersionRoom(writes, in: crdt)
        let outcome = crdt.write(
            writes, refusingColumnVersionsFrom: ChangeLimits.versionMax,
            refusingDeletedRecords: true, skipping: fenceTest())
        // The checks above leave nothing for the CRDT to refuse; were one refused, the
        // writes before it are in the state and must be logged with them.
        return outcome.changes
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
    static func checkColumnVersionRoom(_ writes: [LocalWrite], in crdt: ReplicaState)
        throws(LogbookError)
    {
        // Versions come near the limit only from a hostile peer: only columns within the
        // writes' count of it are counted.
        let versionMax = ChangeLimits.versionMax
        let threshold = versionMax - min(versionMax, UInt64(writes.count))
        var counts: [String: [String: UInt64]] = [:]
        func count(_ column: String, of recordId: String, in record: Record<String, Value>)
            throws(LogbookError)
        {
            let version = record.columnVersion(column)?.colVersion ?? 0
            guard version >= threshold else { return }
            let count = counts[recordId, default: [:]][column, default: 0] + 1
            counts[recordId, default: [:]][column] = count
            guard version >= versionMax || count > versionMax - version else { return }
            throw ChangeAdmission.refusal(
                ColumnVersionAtLimit(column: column, colVersion: version), recordId: recordId)
        }
        for write in writes {
            if case .deleteRecord = write { continue }
            guard let record = crdt.getRecord(write.recordId) else { continue }
            switch write {
            case .insertOrUpdate(let recordId, let fields):
                for (column, _) in fields { try count(column, of: recordId, in: record) }
            case .deleteField(let recordId, let fieldName):
                try count(fieldName, of: recordId, in: record)
            case .deleteRecord:
                continue
            }
        }
    }
}
