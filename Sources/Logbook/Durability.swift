/// When a write is acknowledged, i.e. when `insertOrUpdate` and friends return.
public enum Durability: String, Sendable, CaseIterable {
    /// After the change is in memory; batches reach the OS when full, on `sync()` and on
    /// `close()`. A process crash loses the unwritten tail, an OS crash the unsynced part.
    case buffered
    /// After the change's batch is written and `fdatasync`ed, one sync per call.
    case fsyncEachAppend
    /// After a `fdatasync` that covers the change; concurrent callers share syncs.
    case groupCommit
}
