/// How a log's owner marks where each epoch begins, so that the `epochs` file can be held
/// to the log: the record `record(id, version)` is appended as each epoch's first record,
/// and `epochId(in:)` reads the id back from a record (nil for any other record).
///
/// The storage layer does not interpret records; the owner (the engine) supplies both ways
/// and must keep mark records through compaction and GC. With marks, `Log.holds` believes
/// a position in an epoch only when the record at the epoch's start is that epoch's mark:
/// an `epochs` file copied from a copy of the directory that was written on apart (same
/// log, other epochs) names epochs this log has no marks for, and a follower positioned in
/// one is told it diverged instead of being served from a history it does not share.
public struct EpochMarking: Sendable {
    /// The bytes of the mark of epoch `id`, logged with the caller version `version` (that
    /// of the first record the epoch's writer appends).
    public var record: @Sendable (_ id: UInt64, _ version: UInt64) -> [UInt8]
    /// The epoch id a mark record names; nil for any other record.
    public var epochId: @Sendable (_ record: UnsafeRawBufferPointer) -> UInt64?

    /// A marking made of these two ways.
    public init(
        record: @escaping @Sendable (_ id: UInt64, _ version: UInt64) -> [UInt8],
        epochId: @escaping @Sendable (_ record: UnsafeRawBufferPointer) -> UInt64?
    ) {
        self.record = record
        self.epochId = epochId
    }
}
