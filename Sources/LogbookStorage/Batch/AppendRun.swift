/// What appending changes in a log: the batch being collected and the offset the next record
/// gets. One struct so that a run of records is appended within one access of `Log`'s
/// stored property.
///
/// Each access of a class's stored property is checked for exclusivity at run time (about 80
/// instructions on Linux, a thread-local lookup included). Appending record by record through
/// `Log`'s own properties cost five such checks per record, a tenth of a one-change write's
/// instructions; a run appended here costs one. (Release builds now leave that one out too:
/// docs/decisions/0010-exclusivity-checks-in-release.md.)
struct AppendRun {
    var pending = BatchEncoder()
    var nextOffset: UInt64

    /// Why a run stopped before its last record.
    enum Stop {
        /// Every record was appended.
        case finished
        /// The record at `index` (described as `description`) needs something of the log
        /// first: its epoch begun, or the pending batch written because the record does not
        /// fit.
        case before(index: Int, description: (byteCount: Int, version: UInt64))
        /// The pending batch reached its target with the record before `index`: it is to
        /// be written before the run goes on at `index`.
        case batchReachedTarget(index: Int)
        /// The record at `index` is larger than a record may be.
        case oversized(index: Int, byteCount: Int)
    }

    /// Appends records `index..<count` until one needs the log (see `Stop`). A record the
    /// previous run stopped before comes with its description in `carried`, so that no
    /// record is described twice (`describe` may count what it describes).
    mutating func append(
        from index: Int, to count: Int, carried: (byteCount: Int, version: UInt64)?,
        epochBegun: Bool, batchSizeTarget: Int,
        describedBy describe: (Int) -> (byteCount: Int, version: UInt64),
        writtenBy write: (Int, UnsafeMutableRawPointer) -> Int
    ) -> Stop {
        var index = index
        var carried = carried
        while index < count {
            let (byteCount, version) = carried ?? describe(index)
            carried = nil
            guard byteCount >= 0, byteCount <= Limits.recordSizeMax else {
                return .oversized(index: index, byteCount: byteCount)
            }
            // An empty batch takes any record within the size limit; the check is for a
            // batch that already holds some.
            if !epochBegun || (!pending.isEmpty && !pending.canAppend(byteCount: byteCount)) {
                return .before(index: index, description: (byteCount, version))
            }
            let recordIndex = index
            pending.append(offset: nextOffset, version: version, byteCount: byteCount) {
                write(recordIndex, $0)
            }
            nextOffset += 1
            index += 1
            if pending.rawSize >= batchSizeTarget { return .batchReachedTarget(index: index) }
        }
        return .finished
    }
}
