/// A position in a log: an offset and the epoch that wrote the record before it (0 at offset
/// 0). A copy of the log restored from an older one, or grown in another history, does not
/// hold it (`Logbook.checkPosition`), even when it has grown past the offset again.
public struct LogPosition: Sendable, Equatable {
    /// The offset.
    public var offset: UInt64
    /// The id of the epoch that wrote the record before `offset`.
    public var epochId: UInt64

    /// The position `offset` in epoch `epochId`.
    public init(offset: UInt64, epochId: UInt64) {
        self.offset = offset
        self.epochId = epochId
    }
}

extension Logbook {
    /// The durable end as a position: what a cursor saved now may say this log held.
    public var durablePosition: LogPosition {
        let offset = durableOffset
        return LogPosition(offset: offset, epochId: epochId(before: offset))
    }

    /// Why this log does not hold the position `offset` in epoch `epochId` (nil: the
    /// epoch is not known, only the offset is checked), or nil when it does
    /// (`checkPosition`). What push and pull cursors are checked by.
    public func reasonNotHeld(_ offset: UInt64, epochId: UInt64?) -> String? {
        do {
            try checkPosition(offset, epochId: epochId)
            return nil
        } catch {
            return error.message
        }
    }
}
