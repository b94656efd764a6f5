#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `flock` on the log directory itself, and one on `DIRECTORY/lock` beside it. The kernel
/// drops both when the process dies.
///
/// The directory's lock is the exclusion: it belongs to the directory's inode, so deleting,
/// replacing or renaming the lock file cannot let a second writer in, and a directory renamed
/// while open is still the same locked inode. The lock file is kept for the holder's pid (the
/// refusal names it) and for builds before the directory lock, which take only the file's:
/// a writer holds both, so it excludes them too. `flock` on a directory descriptor is
/// supported by Linux and by the BSDs, Darwin among them.
final class PosixDirectoryLease: DirectoryLease, @unchecked Sendable {
    // @unchecked: the descriptors are set once and closed once, under `release`'s caller.
    private var directoryDescriptor: Int32
    private var fileDescriptor: Int32 = -1

    private init(directoryDescriptor: Int32) {
        self.directoryDescriptor = directoryDescriptor
    }

    /// Takes the exclusive locks (creating the lock file, writing our pid into it) or the
    /// shared ones (the file's only when it exists: creating one would be a write), or throws
    /// `.inUse` naming the holder's pid.
    static func take(directory: String, exclusive: Bool) throws(StorageError)
        -> PosixDirectoryLease?
    {
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else {
            throw StorageError(
                .io, "cannot open the directory: \(String(cString: strerror(errno)))",
                path: directory, errno: errno)
        }
        let lease = PosixDirectoryLease(directoryDescriptor: directoryDescriptor)
        let operation = exclusive ? LOCK_EX : LOCK_SH
        let path = directory + "/" + directoryLockFileName
        guard lease.lock(directoryDescriptor, operation) else {
            throw lease.refusal(operation, directory: directory, lockFile: path)
        }
        lease.fileDescriptor =
            exclusive
            // O_NOFOLLOW: a lock file linked elsewhere would have its target cut and
            // overwritten with our pid.
            ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if lease.fileDescriptor < 0 {
            // A reader of a directory with no lock file has the directory's lock, which
            // is all a current writer checks.
            if !exclusive { return lease }
            let error = errno
            lease.release()
            throw StorageError(
                .io, "cannot open the lock file: \(String(cString: strerror(error)))",
                path: path, errno: error)
        }
        guard lease.lock(lease.fileDescriptor, operation) else {
            throw lease.refusal(operation, directory: directory, lockFile: path)
        }
        if exclusive {
            let pid = Array(String(getpid()).utf8)
            _ = ftruncate(lease.fileDescriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(lease.fileDescriptor, $0.baseAddress, $0.count, 0) }
        }
        return lease
    }

    /// Whether a writer holds the directory's lock: a shared `flock` tried once, without
    /// the retries of `take` (a reader must not wait), and released at once.
    static func isHeldExclusively(_ directory: String) -> Bool {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }  // drops the shared lock, if taken
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Takes a flock on `descriptor`; false when another holds it. A refusal is retried for
    /// about 100 ms first: while another thread of this process spawns a child, the child
    /// holds a copy of every descriptor until it execs (O_CLOEXEC closes them only then), so
    /// a lock this process just released can look held for a few microseconds. A lock
    /// another process holds is still refused, 100 ms later.
    private func lock(_ descriptor: Int32, _ operation: Int32) -> Bool {
        for _ in 0..<Self.lockAttempts {
            if flock(descriptor, operation | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK else { return false }
            usleep(5000)
        }
        return false
    }

    /// Releases what is held and says who holds the directory: the lock file names the last
    /// writer's pid; a reader holding a shared lock leaves no trace, hence "or a reader".
    private func refusal(_ operation: Int32, directory: String, lockFile: String)
        -> StorageError
    {
        release()
        var holder = "?"
        let descriptor = open(lockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor >= 0 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            if count > 0 { holder = String(decoding: buffer.prefix(count), as: UTF8.self) }
            close(descriptor)
        }
        let who = operation == LOCK_EX ? "pid \(holder), or a reader" : "pid \(holder)"
        return StorageError(
            .inUse, "the directory is open in another process (\(who))", path: directory)
    }

    func release() {
        // Closing a descriptor drops its flock.
        if fileDescriptor >= 0 { close(fileDescriptor) }
        if directoryDescriptor >= 0 { close(directoryDescriptor) }
        fileDescriptor = -1
        directoryDescriptor = -1
    }

    deinit { release() }

    /// Tries before a lock is reported held (5 ms apart).
    static let lockAttempts = 20
}
