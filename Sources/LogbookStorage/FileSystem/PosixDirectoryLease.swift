#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `flock` on `DIRECTORY/lock`. The kernel drops it when the process dies; the file itself
/// stays, empty but for the last writer's pid.
final class PosixDirectoryLease: DirectoryLease, @unchecked Sendable {
    // @unchecked: the descriptor is set once and closed once, under `release`'s caller.
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the exclusive lock (creating the lock file, writing our pid into it) or the
    /// shared one (nil when there is no lock file: creating one would be a write), or throws
    /// `.inUse` naming the holder's pid.
    static func take(directory: String, exclusive: Bool) throws(StorageError)
        -> PosixDirectoryLease?
    {
        let path = directory + "/" + directoryLockFileName
        let descriptor =
            exclusive
            // O_NOFOLLOW: a lock file linked elsewhere would have its target cut and
            // overwritten with our pid.
            ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if !exclusive { return nil }
            throw StorageError(
                .io, "cannot open the lock file: \(String(cString: strerror(errno)))",
                path: path, errno: errno)
        }
        let lease = PosixDirectoryLease(descriptor: descriptor)
        try lease.lock(exclusive ? LOCK_EX : LOCK_SH, directory: directory)
        if exclusive {
            let pid = Array(String(getpid()).utf8)
            _ = ftruncate(descriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return lease
    }

    /// Takes the flock, or closes the descriptor and throws `.inUse`. A refusal is retried
    /// for about 100 ms first: while another thread of this process spawns a child, the
    /// child holds a copy of every descriptor until it execs (O_CLOEXEC closes them only
    /// then), so a lock this process just released can look held for a few microseconds.
    /// A lock another process holds is still refused, 100 ms later.
    private func lock(_ operation: Int32, directory: String) throws(StorageError) {
        for _ in 0..<Self.lockAttempts {
            if flock(descriptor, operation | LOCK_NB) == 0 { return }
            guard errno == EWOULDBLOCK else { break }
            usleep(5000)
        }
        // The file holds the pid of the last writer; a reader holding a shared lock leaves
        // no trace, hence "or a reader".
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let holder = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : "?"
        release()
        let who = operation == LOCK_EX ? "pid \(holder), or a reader" : "pid \(holder)"
        throw StorageError(
            .inUse, "the directory is open in another process (\(who))", path: directory)
    }

    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)  // closing the descriptor drops the flock
        descriptor = -1
    }

    deinit { release() }

    /// Tries before `lock` reports the directory in use (5 ms apart).
    static let lockAttempts = 20
}
