/// When a write is acknowledged, i.e. when `insertOrUpdate` and friends return.
public enum Durability: String, Sendable, CaseIterable {
    /// After the change is in memory; batches reach the OS when full (a full batch once the
    /// next one fills, see docs/storage.md), on `sync()` and on `close()`. A process crash
    /// loses the unwritten tail, an OS crash the unsynced part.
    case buffered
    /// After the change's batch is written and `fdatasync`ed, one sync per call.
    case fsyncEachAppend
    /// After a `fdatasync` that covers the change; concurrent callers share syncs.
    case groupCommit
}

extension Durability {
    /// What `LogConfiguration.zeroFillAheadBytes` is when the options leave it nil: 1 MiB
    /// when every write waits for a sync (the syncs then overwrite zeros instead of growing
    /// the file), none for `.buffered`, whose syncs are rare.
    public var defaultZeroFillAheadBytes: Int {
        switch self {
        case .buffered: 0
        case .fsyncEachAppend, .groupCommit: 1 << 20
        }
    }
}
