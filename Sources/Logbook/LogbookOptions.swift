import LogbookStorage

/// How a `Logbook` is opened.
public struct LogbookOptions: Sendable {
    /// When writes are acknowledged. Default `.groupCommit`.
    public var durability: Durability = .groupCommit
    /// The log's tunables (segment size, batch size, index interval, zeros written ahead).
    /// A segment size recorded in the directory's `logbook.json` (`recordsSegmentSize`)
    /// replaces `log.segmentSizeMax` on every open; `log.zeroFillAheadBytes` left nil
    /// becomes `durability.defaultZeroFillAheadBytes`.
    public var log = LogConfiguration()
    /// When this open creates the directory: record `log.segmentSizeMax` in its
    /// `logbook.json`, so every later open (any program, any command) rolls segments at
    /// that size (`logbook init --segment-size`). Default false: nothing recorded, and each
    /// open uses its own options.
    public var recordsSegmentSize = false
    /// Where files live. Default: the real file system.
    public var fileSystem: any FileSystem = PosixFileSystem()
    /// The log's clock, for rolling segments by age. Default none.
    public var clock: (any LogClock)? = nil
    /// Wall-clock time for tombstone retention (and the peer ledger opened with
    /// `PeerLedger(for:)`). Default: the system's.
    public var wallClock: any WallClock = SystemWallClock()
    /// Group commit: wait this long before each sync to gather more appenders. Default 0:
    /// syncs already batch whatever arrives while the previous one runs.
    public var groupCommitDelayNanoseconds: UInt64 = 0
    /// Group commit: how many `fdatasync`s may run at once (at least 1). Default 1. With more,
    /// a writer arriving while a sync runs gets its own sync at once instead of waiting for
    /// that one to finish first; on the 2-core test machine the syncs' CPU made that slower
    /// (see `GroupCommitter` and docs/storage.md).
    public var groupCommitSyncsInFlightMax = 1
    /// Views to rebuild at open and maintain with every accepted change.
    public var views: [any MaterializedView] = []
    /// Save each `CheckpointableView`'s state when the Logbook closes and, on open, restore
    /// it and replay only the later changes into it (a checkpoint that does not prove itself
    /// is discarded; see `CheckpointableView`). Off by default: it writes files beside the log.
    public var viewCheckpoints = false
    /// When replica snapshots are written and whether opening loads one (on by default:
    /// written on close and every 64 MiB logged; see `SnapshotPolicy`).
    public var snapshots = SnapshotPolicy()
    /// Called during the replay at open with (bytes read, bytes total).
    public var replayProgress: (@Sendable (Int64, Int64) -> Void)? = nil
    /// Opens without changing a byte of the directory (`Log.openReadOnly`): a torn tail is
    /// reported, not cut; missing indexes are built in memory; no view checkpoint is saved;
    /// every write and maintenance pass throws `.readOnly`. For commands that only read
    /// (`verify`, `inspect`, `export`, `replay`, `graph`, `search`, `bridges`), and for
    /// read-only directories and mounts. Takes a shared lock: a writer elsewhere refuses it.
    public var readOnly = false

    /// The defaults.
    public init() {}
}

/// What opening a Logbook read and how long it took.
public struct ReplayStatistics: Hashable, Sendable {
    /// Batches read.
    public var batches = 0
    /// Records read (changes and clock records).
    public var records = 0
    /// Changes applied.
    public var changes = 0
    /// Uncompressed record bytes.
    public var rawBytes: Int64 = 0
    /// Bytes on disk read (headers and LZ4 frames).
    public var storedBytes: Int64 = 0
    /// Wall time of the replay, in seconds.
    public var seconds: Double = 0
}
