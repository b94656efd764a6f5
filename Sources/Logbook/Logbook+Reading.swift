import LogbookCRDT
import LogbookStorage

extension Logbook {
    /// `fdatasync`s the group committer has issued (0 in other modes).
    public var groupCommitSyncCount: Int { committer?.syncCount ?? 0 }

    /// What recovery did when the log was opened (torn tail cut, indexes rebuilt).
    public var recovery: RecoveryReport { log.recovery }

    /// The digest of the current state; see `StateDigest`. O(state).
    public func stateDigest() -> StateDigest {
        locked { StateDigest(of: crdt) }
    }

    /// The record, if live.
    public func getRecord(_ recordId: String) -> Record<String, Value>? {
        locked { crdt.getRecord(recordId) }
    }

    /// Runs `body` under the engine's lock with a reader of live records, so that what it
    /// reads from the state and from views (applied under the same lock, inside each write)
    /// is one moment's. For the data layer's queries; `body` must not call the Logbook.
    package func readingState<R>(_ body: (_ record: (String) -> Record<String, Value>?) -> R)
        -> R
    {
        locked { body { crdt.getRecord($0) } }
    }

    /// True when `view` is one of this Logbook's views (`LogbookOptions.views`), kept as
    /// changes are accepted.
    public func maintains(_ view: any MaterializedView) -> Bool {
        views.contains { $0 === view }
    }

    /// True when the record is deleted.
    public func isTombstoned(_ recordId: String) -> Bool {
        locked { crdt.isTombstoned(recordId) }
    }

    /// Every live record. O(records): the state is copied under the lock in O(1) (shared
    /// copy-on-write) and the dictionary built outside it.
    public func records() -> [String: Record<String, Value>] {
        locked { crdt.copy() }.getData()
    }

    /// Tombstones held.
    public func tombstoneCount() -> Int {
        locked { crdt.tombstoneCount() }
    }

    /// The replica's clock.
    public func clock() -> LogicalClock {
        locked { crdt.getClock() }
    }

    /// crdt-lite's state-based sync: see `CRDT.getChangesSince`. The records holding newer
    /// changes are gathered under the lock (O(records), no copy of the state); the changes
    /// are built and sorted outside it, so writers never wait for a large answer.
    public func getChangesSince(_ version: UInt64) -> [Change<String, String, Value>] {
        locked { crdt.changedState(since: version) }.changes()
    }

    /// What `getChangesSince(version)` would return, gathered under the lock without building
    /// a change (`ChangedState`: O(records), references to the state's own records): an
    /// answer built from it a window at a time (`ChangedState.windowEnds(changesMax:)`)
    /// holds one window's changes at once.
    public func changedState(since version: UInt64) -> ChangedState<String, String, Value> {
        locked { crdt.changedState(since: version) }
    }

    /// `getChangesSince(version)` a page at a time: the changes up to a local version chosen
    /// so the page holds about `changesMax` (more only when one transaction is larger), and
    /// the version to ask after next, nil when nothing newer was left. A client that pages
    /// from 0 to the end holds the state as of its last page: a change made meanwhile gets
    /// a newer local version than every page already read.
    public func changesPage(since version: UInt64, changesMax: Int) -> (
        changes: [Change<String, String, Value>], nextSince: UInt64?
    ) {
        let state = locked { crdt.changedState(since: version) }
        guard let end = state.pageEnd(changesMax: changesMax) else { return (state.changes(), nil) }
        return (state.changes(through: end), end)
    }

    /// The offset the next record gets; every record below it has been accepted.
    public var nextOffset: UInt64 { locked { log.nextOffset } }
    /// Every offset below this is durable (synced); what peers may be sent.
    public var durableOffset: UInt64 { locked { log.durableOffset } }
    /// The first offset the log still holds.
    public var startOffset: UInt64 { locked { log.startOffset } }
    /// Number of segment files.
    public var segmentCount: Int { locked { log.segmentCount } }
    /// Bytes of all segment files.
    public var sizeBytes: Int64 { locked { log.sizeBytes } }

    /// Calls `body` for every accepted change appended at or after `offset`, in log order;
    /// see `changes(since:)` for the streaming form it is built on.
    public func forEachChange(
        since offset: UInt64,
        _ body: (UInt64, Change<String, String, Value>) throws(LogbookError) -> Void
    ) throws(LogbookError) {
        var stream = try changes(since: offset)
        while let (recordOffset, change) = try stream.next() {
            try body(recordOffset, change)
        }
    }
}
