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
        locked { crdt.getChangesSince(version) }
    }

    /// The offset the next record gets; every record below it has been accepted.
    public var nextOffset: UInt64 { locked { log.nextOffset } }
    /// The first offset the log still holds.
    public var startOffset: UInt64 { locked { log.startOffset } }
    /// Number of segment files.
    public var segmentCount: Int { locked { log.segmentCount } }
    /// Bytes of all segment files.
    public var sizeBytes: Int64 { locked { log.sizeBytes } }

    /// Streams the accepted changes appended at or after `offset`, in log order, with their
    /// offsets; clock records are skipped. Reads from disk batch by batch (bounded memory),
    /// outside the lock, so writers are not blocked. Throws `.corruption` naming the file and
    /// offset of a bad record, and storage errors.
    public func forEachChange(
        since offset: UInt64,
        _ body: (UInt64, Change<String, String, Value>) throws(LogbookError) -> Void
    ) throws(LogbookError) {
        let cursor: LogCursor
        do {
            cursor = try locked { () throws(StorageError) in try log.makeCursor(from: offset) }
        } catch {
            throw LogbookError(error)
        }
        while true {
            let hasBatch: Bool
            do { hasBatch = try cursor.next() } catch { throw LogbookError(error) }
            guard hasBatch else { return }
            try cursor.forEachRecord { (recordOffset, bytes) throws(LogbookError) in
                switch ChangeRecordCodec.decode(bytes) {
                case .success(.change(let change)): try body(recordOffset, change)
                case .success(.clock): break
                case .failure(let failure):
                    throw LogbookError(
                        .corruption, failure.description, path: cursor.location.path,
                        logOffset: recordOffset)
                }
            }
        }
    }
}
