/// The lock on a log directory, held while a log is open there: exclusive for a writer, so
/// two processes never append to or rewrite one log at once; shared for readers, which
/// change nothing. Released by `release()` or when the holder goes away (a process that
/// dies, `kill -9` included, drops it).
public protocol DirectoryLease: AnyObject, Sendable {
    /// Drops the lock; idempotent.
    func release()
}

extension StorageError.Code {
    /// The directory's lock is held by another process (or another open in this one).
    public static let inUse = StorageError.Code(name: "inUse")
}

/// The name of the lock file in a log directory.
public let directoryLockFileName = "lock"
