import LogbookStorage

/// Reads back the versions of single logged changes, for compaction's ties (`LiveSet`): the
/// batch holding the asked offset is read and its records' versions kept until a read falls
/// outside it. Ties are rare (concurrent writes to one column), so nothing more is cached.
final class LoggedVersionReader {
    typealias Versions = (colVersion: UInt64, dbVersion: UInt64, nodeId: UInt64)

    private let makeCursor: (UInt64) throws(LogbookError) -> LogCursor
    /// Versions by offset, from the batch read last (from the asked offset on).
    private var batch: [UInt64: Versions] = [:]

    init(makeCursor: @escaping (UInt64) throws(LogbookError) -> LogCursor) {
        self.makeCursor = makeCursor
    }

    func versions(at offset: UInt64) throws(LogbookError) -> Versions {
        if let known = batch[offset] { return known }
        batch.removeAll(keepingCapacity: true)
        let cursor = try makeCursor(offset)
        _ = try Compactor.forEachKeyOfNextBatch(cursor) { recordOffset, key in
            batch[recordOffset] = (key.colVersion, key.dbVersion, key.nodeId)
        }
        guard let found = batch[offset] else {
            throw LogbookError(
                .corruption, "no change at this offset when reading it back for compaction",
                path: cursor.location.path, logOffset: offset)
        }
        return found
    }
}
