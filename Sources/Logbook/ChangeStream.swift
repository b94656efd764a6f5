import LogbookCRDT
import LogbookStorage

/// The accepted changes of a log from an offset, in log order, one batch in memory at a time.
///
/// Made by `Logbook.changes(since:)`. Clock records are skipped. Not thread-safe; it reads
/// with its own file handles, so the Logbook keeps accepting writes meanwhile (the stream
/// sees what was appended before it was made).
public struct ChangeStream {
    private let cursor: LogCursor
    private var decoded: [(offset: UInt64, change: Change<String, String, Value>)] = []
    private var position = 0
    private var columnNames = RecentShortStrings()

    init(cursor: LogCursor) {
        self.cursor = cursor
    }

    /// The next change and its offset, or nil at the end. Throws `.corruption` naming the
    /// file and offset of a bad record, or `.storage` for damage and I/O errors.
    public mutating func next() throws(LogbookError) -> (
        offset: UInt64, change: Change<String, String, Value>
    )? {
        while position == decoded.count {
            decoded.removeAll(keepingCapacity: true)
            position = 0
            let hasBatch: Bool
            do { hasBatch = try cursor.next() } catch { throw LogbookError(error) }
            guard hasBatch else { return nil }
            // Moved out while the closure fills them, so that neither is copied on write.
            var (batch, columnNames) = (decoded, self.columnNames)
            (decoded, self.columnNames) = ([], RecentShortStrings.none)
            try cursor.forEachRecord { (offset, bytes) throws(LogbookError) in
                var change = ChangeRecordCodec.blankChange()
                switch ChangeRecordCodec.decode(bytes, into: &change, columnNames: &columnNames) {
                case .change: batch.append((offset, consume change))
                case .clock: break
                case .failure(let failure):
                    throw LogbookError(
                        .corruption, failure.description, path: cursor.location.path,
                        logOffset: offset)
                }
            }
            (decoded, self.columnNames) = (batch, columnNames)
        }
        defer { position += 1 }
        return decoded[position]
    }
}

extension Logbook {
    /// Streams the accepted changes appended at or after `offset` (see `ChangeStream`).
    /// Throws `.storage` with `invalidArgument` for an offset below the log start.
    public func changes(since offset: UInt64) throws(LogbookError) -> ChangeStream {
        do {
            // A compaction may replace segments while the stream reads: re-plan under the lock.
            let cursor = try locked { () throws(StorageError) in
                try log.makeCursor(from: offset) { [unowned self] resume in
                    self.locked { self.log.spans(from: resume) }
                }
            }
            return ChangeStream(cursor: cursor)
        } catch {
            throw LogbookError(error)
        }
    }
}
