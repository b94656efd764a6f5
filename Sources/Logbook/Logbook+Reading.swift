import LogbookCRDT
import LogbookStorage

extension Logbook {
    /// The digest of the current state; see `StateDigest`. O(state).
    public func stateDigest() -> StateDigest {
        locked { StateDigest(of: crdt) }
    }

    /// The record, if live.
    public func getRecord(_ recordId: String) -> Record<String, Value>? {
        locked { crdt.getRecord(recordId) }
    }

    /// True when the record is deleted.
    public func isTombstoned(_ recordId: String) -> Bool {
        locked { crdt.isTombstoned(recordId) }
    }

    /// Every live record (a copy-on-write snapshot).
    public func records() -> [String: Record<String, Value>] {
        locked { crdt.getData() }
    }

    /// Tombstones held.
    public func tombstoneCount() -> Int {
        locked { crdt.tombstoneCount() }
    }

    /// The replica's clock.
    public func clock() -> LogicalClock {
        locked { crdt.getClock() }
    }

    /// crdt-lite's state-based sync: see `CRDT.getChangesSince`.
    public func getChangesSince(_ version: UInt64) -> [Change<String, String, Value>] {
        // Under the lock, not on a copy: clients poll this with recent versions, and a
        // copy-on-write copy would make the next write copy the whole state. The full-state
        // read (`snapshotChanges`) is the one that copies.
        locked { crdt.getChangesSince(version) }
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
