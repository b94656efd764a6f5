/// The history a log replays to. Tombstone GC removes records, so what the log replays to
/// changes: every GC begins a new history (a new random id, and the offset below which the
/// rewrite may have removed records) before it rewrites a byte. A replica snapshot records
/// the history it was taken in; one from an earlier history would bring collected records
/// back and is set aside.
public struct LogHistory: Hashable, Sendable {
    /// Random, never 0.
    public var id: UInt64
    /// The log's end when this history began: records below it may have been collected.
    public var startOffset: UInt64

    /// The history `id`, begun at `startOffset`.
    public init(id: UInt64, startOffset: UInt64) {
        self.id = id
        self.startOffset = startOffset
    }

    /// A new history beginning at `offset`.
    public static func beginning(at offset: UInt64) -> LogHistory {
        LogHistory(id: .random(in: 1 ... .max), startOffset: offset)
    }
}
