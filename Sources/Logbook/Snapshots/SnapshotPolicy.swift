/// When a `Logbook` writes replica snapshots and whether it opens from them; see
/// `Logbook.writeSnapshot()` and docs/storage.md.
public struct SnapshotPolicy: Sendable, Equatable {
    /// Load the newest snapshot that proves itself at open and replay only the log after
    /// it. Off: every open replays the whole log (snapshots are still written). Default on.
    public var loadAtOpen = true
    /// Write a snapshot when the Logbook closes if at least this many bytes of change
    /// records are not covered by the newest one (those replayed at open and those logged
    /// since); nil never, 0 whenever any are. Default 1 MiB: a one-change command on a large
    /// replica does not rewrite its whole state, and the tail it leaves replays in
    /// milliseconds.
    public var onCloseAfterBytes: Int64? = 1 << 20
    /// Write one in the background after this many bytes of change records were logged
    /// since the last; nil never. Default 64 MiB. The writer copies the state under the
    /// lock (O(1), copy-on-write); the first write after it copies the dictionaries once.
    public var everyLogBytes: Int64? = 64 << 20
    /// Snapshots kept, newest first: an older one is the fallback when the newest fails its
    /// checks. At least 1. Default 2.
    public var kept = 2

    /// The defaults.
    public init() {}

    /// Opens from a snapshot but writes none: for commands that must change no byte.
    public static var loadOnly: SnapshotPolicy {
        var policy = off
        policy.loadAtOpen = true
        return policy
    }

    /// No snapshot written or loaded: opens replay the whole log.
    public static var off: SnapshotPolicy {
        var policy = SnapshotPolicy()
        policy.loadAtOpen = false
        policy.onCloseAfterBytes = nil
        policy.everyLogBytes = nil
        return policy
    }
}

/// What became of the replica snapshots when a `Logbook` opened.
public struct SnapshotLoad: Sendable, Equatable, Encodable {
    /// The snapshot the state was loaded from (a file name beside the log), or nil when the
    /// whole log was replayed.
    public var file: String?
    /// The log offset the loaded snapshot covers (0 when none was loaded).
    public var offset: UInt64 = 0
    /// Entries (columns and tombstones) loaded from it.
    public var entries: UInt64 = 0
    /// Seconds spent reading and checking it.
    public var seconds: Double = 0
    /// Snapshots found but not trusted, as "file: reason"; a writable open renames each to
    /// `<file>.set-aside`.
    public var setAside: [String] = []

    /// Nothing loaded, nothing set aside.
    public init() {}
}

/// What `Logbook.writeSnapshot()` did.
public struct SnapshotReport: Sendable, Equatable, Encodable {
    /// The file (beside the log) holding the snapshot.
    public var file: String
    /// The log offset it covers: every record below it is in it.
    public var offset: UInt64
    /// Live columns and tombstones written.
    public var entries: UInt64
    /// The file's size.
    public var bytes: Int64
    /// The state's digest, as `Logbook.stateDigest()` gives it.
    public var digest: String
    /// False when a snapshot at this offset already existed and nothing was written.
    public var written: Bool
    /// Seconds taken.
    public var seconds: Double
}
