import CoreMetrics
import Foundation
import LogbookCRDT
import LogbookStorage

/// A durable replica: crdt-lite's CRDT, held as a `ReplicaState` (the same semantics as
/// `CRDT<String, String, Value>`, stored for speed), whose every accepted mutation (local
/// write or accepted remote change) is appended to a log before it is acknowledged.
///
/// Opening replays the log and rebuilds the identical CRDT state: data, column versions,
/// tombstones and clock. Writes return once their `Durability` holds. All methods are safe
/// to call from many tasks; with `.groupCommit`, concurrent writers share `fdatasync`s.
///
/// Isolation: the async writes (`insertOrUpdate`, `deleteField`, `deleteRecord`,
/// `write(_:)`, `merge`, `mergeLocated`) are `nonisolated(nonsending)`: they run on the
/// caller's executor and suspend only to wait for a group commit. Called from the main
/// actor, a write costs no hop to another thread and back (about 8 times the calls per
/// second of a hopping call; docs/decisions/0009), but a large merge or batch also runs
/// there: make those from a task off the main actor.
///
/// If appending to the log fails, the in-memory state may be ahead of the log: the instance
/// then refuses further work with `.failed`; reopening recovers what the log holds.
public final class Logbook: @unchecked Sendable {
    // @unchecked: crdt, log and the bookkeeping below are guarded by `lock`; the committer
    // is thread-safe and immutable after init.
    private let lock = AdaptiveLock()
    let crdt: ReplicaState
    let log: Log
    /// Who observes the commits (`committedChanges()`); thread-safe on its own.
    let observers = ChangeObservers()
    private(set) var committer: GroupCommitter?
    /// The highest local version logged (guarded by `lock`).
    var loggedClock: UInt64
    /// The failure that poisoned this instance, if any (guarded by `lock`).
    var failure: LogbookError? { didSet { hasFailed = failure != nil } }
    /// `failure != nil`, read by every write: testing the optional itself copies the whole
    /// error (two copies a write, a percent of a one-change write's instructions).
    private(set) var hasFailed = false
    /// The array the last one-call write returned, kept to be written over by the next
    /// (guarded by `lock`; `Logbook+ReusedChanges.swift`).
    var reusableChanges: [Change<String, String, Value>] = []
    /// Whether a compaction or GC pass runs (guarded by `lock`).
    var isMaintaining = false
    /// Set when a read-only refresh failed after its log moved on: the next one replays
    /// from the start (guarded by `lock`).
    var refreshReplaysFromStart = false
    /// What tombstone GC has done (guarded by `lock`).
    var collection: TombstoneCollectionState
    /// Collected records whose local writes are refused until every peer has collected
    /// them too (guarded by `lock`); see docs/maintenance.md.
    var fencedIds: Set<String>
    let views: [any MaterializedView]
    let fileSystem: any FileSystem
    /// The wall clock from the options.
    let wallClock: any WallClock
    let logConfiguration: LogConfiguration
    /// The directory holding the log.
    public let directory: String
    /// This replica's node id.
    public let nodeId: NodeId
    /// When writes are acknowledged.
    public let durability: Durability
    /// What the replay at open read.
    public let replayStatistics: ReplayStatistics
    /// Per view name: whether a checkpoint was restored at open, and if not why.
    public let viewCheckpointStatus: [String: ViewCheckpointStatus]
    let checkpointsOnClose: Bool
    let metrics = EngineMetrics()
    /// When snapshots are written.
    let snapshotPolicy: SnapshotPolicy
    /// Held while a snapshot is written, and while GC removes them: one at a time.
    let snapshotWriting = NSLock()
    /// Snapshot bookkeeping (guarded by `lock`).
    var snapshots = SnapshotBookkeeping()
    /// Whether the open loaded a replica snapshot, and which snapshots it set aside.
    public let snapshotLoad: SnapshotLoad
    /// Offsets `tombstone-gc.json` named past the log's end, which the open lowered to it
    /// (one line each; empty when it named none). Saved by the next GC run.
    public let tombstoneGCOffsetsLowered: [String]

    private init(
        directory: String, nodeId: NodeId, options: LogbookOptions,
        crdt: ReplicaState, log: Log, statistics: ReplayStatistics,
        checkpointStatus: [String: ViewCheckpointStatus], collection: TombstoneCollectionState,
        snapshotLoad: SnapshotLoad, tombstoneGCOffsetsLowered: [String]
    ) {
        self.snapshotLoad = snapshotLoad
        self.tombstoneGCOffsetsLowered = tombstoneGCOffsetsLowered
        snapshotPolicy = options.snapshots
        snapshots.lastOffset = snapshotLoad.file == nil ? nil : snapshotLoad.offset
        snapshots.bytesSinceLast = statistics.rawBytes
        self.collection = collection
        fencedIds = collection.fencedIds
        self.directory = directory
        self.nodeId = nodeId
        durability = options.durability
        fileSystem = options.fileSystem
        wallClock = options.wallClock
        logConfiguration = options.log
        views = options.views
        self.crdt = crdt
        self.log = log
        self.replayStatistics = statistics
        viewCheckpointStatus = checkpointStatus
        checkpointsOnClose = options.viewCheckpoints
        loggedClock = crdt.getClock().currentTime()
    }

    /// Opens (or creates) the Logbook in `directory` and replays its log.
    ///
    /// `nodeId` is required for a new directory and, when given for an existing one, must
    /// match the recorded node. Throws `.nodeMismatch`, `.corruption` (a record that is not a
    /// change), or `.storage` (recovery found damage that is not a torn tail, or I/O failed).
    public static func open(
        directory: String, nodeId: NodeId? = nil, options: LogbookOptions = LogbookOptions()
    ) throws(LogbookError) -> Logbook {
        let fileSystem = options.fileSystem
        let metadata = try NodeMetadata.resolve(
            directory: directory, nodeId: nodeId, options: options)
        let resolvedNode = metadata.nodeId
        var options = options
        metadata.apply(to: &options.log)
        if options.log.zeroFillAheadBytes == nil {
            options.log.zeroFillAheadBytes = options.durability.defaultZeroFillAheadBytes
        }
        let log: Log
        do {
            log =
                options.readOnly
                ? try Log.openReadOnly(
                    directory: directory, fileSystem: fileSystem, configuration: options.log)
                : try Log.open(
                    directory: directory, fileSystem: fileSystem, configuration: options.log,
                    clock: options.clock)
        } catch {
            throw LogbookError(error)
        }
        if metadata.identity == nil && !options.readOnly {
            // Written before logs had identities: from now on it names the log's.
            var named = metadata
            named.logId = log.identity.hex
            do throws(LogbookError) {
                try named.write(directory: directory, fileSystem: fileSystem)
            } catch {
                try? log.close()
                throw error
            }
        }
        let (loaded, snapshotLoad) =
            options.snapshots.loadAtOpen
            ? SnapshotLoader.load(
                directory: directory, nodeId: resolvedNode, log: log, readOnly: options.readOnly,
                fileSystem: fileSystem)
            : (nil, SnapshotLoad())
        let crdt = loaded ?? ReplicaState(nodeId: resolvedNode)
        let names = options.views.map(\.name)
        guard Set(names).count == names.count else {
            throw LogbookError(
                .badMetadata, "view names must be unique: \(names.sorted())", path: directory)
        }
        let (starts, checkpointStatus) = restoreViews(
            options.views, enabled: options.viewCheckpoints, log: log, directory: directory,
            fileSystem: fileSystem)
        let statistics = try Replayer.replay(
            log, into: crdt, from: snapshotLoad.offset, views: Array(zip(options.views, starts)),
            progress: options.replayProgress)
        var collection = try TombstoneCollectionState.read(
            directory: directory, fileSystem: fileSystem)
        let lowered = collection.bound(byLogEnd: log.nextOffset)
        let logbook = Logbook(
            directory: directory, nodeId: resolvedNode, options: options, crdt: crdt,
            log: log, statistics: statistics, checkpointStatus: checkpointStatus,
            collection: collection, snapshotLoad: snapshotLoad,
            tombstoneGCOffsetsLowered: lowered)
        if options.readOnly {
            // Every write, maintenance pass and checkpoint checks `failure` first.
            logbook.failure = LogbookError(
                .readOnly, "the Logbook was opened read-only", path: directory)
        } else if options.durability == .groupCommit {
            logbook.startGroupCommit(
                delayNanoseconds: options.groupCommitDelayNanoseconds,
                syncsInFlightMax: options.groupCommitSyncsInFlightMax)
        }
        return logbook
    }

    deinit {
        // A Logbook dropped without close() must not leave its committer thread waiting
        // forever. No writer can be waiting (they hold references), so the thread exits
        // without another sync; unsynced buffered data stays in the OS cache as documented.
        committer?.stop()
    }

    // MARK: Writes

    /// `CRDT.insertOrUpdate`, logged. Returns the changes once they are durable per mode.
    /// Like crdt-lite, a write to a deleted record is refused (no changes); so is one to a
    /// record whose tombstone GC collected while a peer may still hold it (`isFenced`).
    /// Ids and column names are written in Unicode NFC (`ChangeAdmission.admitLocalWrite`).
    ///
    /// The array returned is one the engine keeps and writes the next write's changes over
    /// once its caller has let go of it, so that a caller that drops the result allocates
    /// and frees no array per write; one kept is a value like any other, never changed
    /// (`Logbook+ReusedChanges.swift`).
    @discardableResult
    public nonisolated(nonsending) func insertOrUpdate(
        _ recordId: String, fields: [(String, Value)]
    ) async throws(LogbookError) -> [Change<String, String, Value>] {
        // A plain write goes on with the arguments themselves: taken through the admission's
        // answer, the id and the fields were retained (and released) once more per call.
        if ChangeAdmission.isPlainLocalWrite(recordId: recordId, fields: fields) {
            return try await insertOrUpdateAdmitted(recordId, fields: fields)
        }
        let (recordId, fields) = try ChangeAdmission.admitLocalWriteChecked(
            recordId: recordId, fields: fields)
        return try await insertOrUpdateAdmitted(recordId, fields: fields)
    }

    /// `insertOrUpdate` of an admitted write. Inlined into both of its calls, so that a
    /// write has no async frame of its own.
    @inline(__always)
    private nonisolated(nonsending) func insertOrUpdateAdmitted(
        _ recordId: String, fields: [(String, Value)]
    ) async throws(LogbookError) -> [Change<String, String, Value>] {
        try await write { crdt throws(LogbookError) in
            if isFenced(held: recordId) { return [] }
            return try checkedLocalWrite(crdt, recordId) { limit throws(ColumnVersionAtLimit) in
                var changes = takeReusableChanges()
                defer { keepForReuse(changes) }
                try crdt.insertOrUpdate(
                    recordId, fields: fields, refusingColumnVersionsFrom: limit,
                    reusing: &changes)
                return changes
            }
        }
    }

    /// `CRDT.deleteRecord`, logged. Nil when the record was already deleted (or is fenced).
    @discardableResult
    public nonisolated(nonsending) func deleteRecord(_ recordId: String)
        async throws(LogbookError) -> Change<String, String, Value>?
    {
        let recordId = try ChangeAdmission.admitLocalWrite(recordId: recordId, fields: []).recordId
        return try await write { crdt throws(LogbookError) in
            if isFenced(held: recordId) || crdt.isTombstoned(recordId) { return [] }
            try ChangeAdmission.checkClockRoom(clock: crdt.getClock().currentTime())
            return reusedArray(holding: crdt.deleteRecord(recordId))
        }.first
    }

    /// `CRDT.deleteField`, logged. Nil when there was no such field.
    @discardableResult
    public nonisolated(nonsending) func deleteField(_ recordId: String, fieldName: String)
        async throws(LogbookError) -> Change<String, String, Value>?
    {
        let (recordId, fieldName) = try ChangeAdmission.admitFieldDeletion(
            recordId: recordId, fieldName: fieldName)
        return try await write { crdt throws(LogbookError) in
            try checkedLocalWrite(crdt, recordId) { limit throws(ColumnVersionAtLimit) in
                reusedArray(
                    holding: try crdt.deleteField(
                        recordId, fieldName: fieldName, refusingColumnVersionsFrom: limit))
            }
        }.first
    }

    /// Merges remote changes (crdt-lite semantics) and logs the accepted ones, which it
    /// returns with this replica's local versions.
    ///
    /// Every change is checked against `ChangeLimits` first; if one breaks a bound the call
    /// throws `.invalidChange` naming it (`changeIndex`), or `.limitExceeded` when the
    /// versions would exhaust the clock, and merges nothing. A `dbVersion` or `colVersion`
    /// this replica's clock would not follow fully (above 2^62 and more than 2^32 past the
    /// clock) is refused too: a crdt-lite client that pulled it could not write again.
    @discardableResult
    public nonisolated(nonsending) func merge(_ changes: [Change<String, String, Value>])
        async throws(LogbookError) -> [Change<String, String, Value>]
    {
        try await mergeLocated(changes).accepted
    }

    /// `merge`, also saying where in this log the accepted changes went: a node that pulls
    /// from a hub remembers those offsets so it never pushes the hub's own changes back.
    public nonisolated(nonsending) func mergeLocated(_ changes: [Change<String, String, Value>])
        async throws(LogbookError) -> MergedChanges
    {
        try await mergeLocated(changes, from: .client)
    }

    /// `mergeLocated(_:)` for changes from `origin`: a peer's versions are not held to the
    /// client door (`RemoteChangeOrigin`).
    package nonisolated(nonsending) func mergeLocated(
        _ changes: [Change<String, String, Value>], from origin: RemoteChangeOrigin
    ) async throws(LogbookError) -> MergedChanges {
        try ChangeAdmission.checkRemote(changes)
        metrics.receivedChanges.increment(by: Int64(changes.count))
        return try await logged { crdt throws(LogbookError) in
            let clock = crdt.getClock().currentTime()
            if origin == .client {
                try ChangeAdmission.checkClientVersions(clock: clock, merging: changes)
            }
            try ChangeAdmission.checkClockRoom(clock: clock, merging: changes)
            return (changes, crdt.merge(changes))
        }
    }

    /// Writes everything appended so far and `fdatasync`s it, whatever the durability mode.
    public func sync() throws(LogbookError) {
        try locked { () throws(LogbookError) in
            do throws(StorageError) { try log.sync() } catch { throw fail(error) }
        }
    }

    /// Syncs and closes the log. The instance refuses work afterwards.
    ///
    /// A snapshot on close that could not be written (a full disk, say) does not make the
    /// close fail: everything written is durable, and the next open replays the log instead.
    /// It is counted (`logbook_snapshot_failures_total`) and said by `lastSnapshotFailure`.
    /// Before, `logbook put` exited 1 after its write was durable when only that snapshot
    /// failed.
    public func close() throws(LogbookError) {
        defer { observers.finish() }  // so an app's loop over a stream ends with the Logbook
        committer?.stop()
        if checkpointsOnClose && failure == nil { try checkpointViews() }
        let uncovered = locked {
            failure == nil && log.nextOffset > 0 ? snapshots.bytesSinceLast : -1
        }
        if let threshold = snapshotPolicy.onCloseAfterBytes, uncovered >= threshold {
            do { _ = try writeReplicaSnapshot() } catch {
                metrics.snapshotFailures.increment()
                locked { snapshots.lastFailure = "snapshot on close not written: \(error)" }
            }
        }
        // A background snapshot still being written finishes first, and none starts after:
        // no file is written once the directory's lock is released.
        snapshotWriting.lock()
        defer { snapshotWriting.unlock() }
        try locked { () throws(LogbookError) in
            do throws(StorageError) { try log.close() } catch { throw fail(error) }
            if failure == nil {
                failure = LogbookError(.failed, "the Logbook is closed", path: directory)
            }
        }
    }

    /// Runs a local write that checks its columns against `ChangeLimits.versionMax` in its
    /// own lookup, after the clock's check; a column at the limit is refused as
    /// `.limitExceeded` naming it. Called with the lock held.
    private func checkedLocalWrite(
        _ crdt: ReplicaState, _ recordId: String,
        _ write: (UInt64) throws(ColumnVersionAtLimit) -> [Change<String, String, Value>]
    ) throws(LogbookError) -> [Change<String, String, Value>] {
        try ChangeAdmission.checkClockRoom(clock: crdt.getClock().currentTime())
        do throws(ColumnVersionAtLimit) {
            return try write(ChangeLimits.versionMax)
        } catch {
            throw ChangeAdmission.refusal(error, recordId: recordId)
        }
    }

    /// Applies `operation` to the CRDT and appends what it produced, under the lock; then
    /// waits for the durability mode's promise.
    ///
    /// `operation` may throw before it changes the CRDT (an admission check); it must not
    /// throw after. Inlined, as `logged(_:)` is, so a write has no async frame of its own.
    @inline(__always)
    private nonisolated(nonsending) func write(
        _ operation: (ReplicaState) throws(LogbookError) -> [Change<
            String, String, Value
        >]
    ) async throws(LogbookError) -> [Change<String, String, Value>] {
        try await logged { crdt throws(LogbookError) in (try operation(crdt), nil) }.batch
    }

    private func startGroupCommit(delayNanoseconds: UInt64, syncsInFlightMax: Int) {
        committer = GroupCommitter(
            durableOffset: log.durableOffset, maxDelayNanoseconds: delayNanoseconds,
            syncsInFlightMax: syncsInFlightMax,
            flushForSync: { [unowned self] () throws(StorageError) in
                try self.locked { () throws(StorageError) in
                    // durable <= flushed <= next, so this says nothing is pending or unsynced
                    // (a sync outside the committer, e.g. `sync()` or GC's, may have done it).
                    if self.log.nextOffset == self.log.durableOffset {
                        return .durable(self.log.durableOffset)
                    }
                    let target = try self.log.flushForSync()
                    return .sync(file: target.file, offset: target.offset)
                }
            },
            noteDurable: { [unowned self] offset in
                self.locked { self.log.noteDurable(through: offset) }
            })
    }

    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
