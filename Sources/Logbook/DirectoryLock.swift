#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on `DIRECTORY/lock`, held while a Logbook is open, so two processes
/// (say `logbook serve` and `logbook gc`) never append to or rewrite one log at once. The
/// kernel drops it when the process dies, `kill -9` included; the file itself stays, empty
/// but for the holder's pid.
public final class DirectoryLock: @unchecked Sendable {
    // @unchecked: the descriptor is set once and closed once.
    static let fileName = "lock"
    private var descriptor: Int32

    /// Takes the lock or throws `.inUse` naming the holder's pid when another process has it.
    public init(directory: String) throws(LogbookError) {
        let path = directory + "/" + Self.fileName
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LogbookError(
                .storage, "cannot open the lock file: \(String(cString: strerror(errno)))",
                path: path)
        }
        try lock(LOCK_EX, directory: directory)
        let pid = Array(String(getpid()).utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A shared lock for a reader, which changes nothing: several readers may hold it, a
    /// writer may not while they do. Nil when the directory has no lock file (no writer
    /// ever opened it, or it lies on a read-only mount); creating one would be a write.
    public static func shared(directory: String) throws(LogbookError) -> DirectoryLock? {
        let descriptor = open(directory + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let lock = DirectoryLock(descriptor: descriptor)
        try lock.lock(LOCK_SH, directory: directory)
        return lock
    }

    /// Takes the flock without waiting, or closes the descriptor and throws `.inUse`.
    private func lock(_ operation: Int32, directory: String) throws(LogbookError) {
        guard flock(descriptor, operation | LOCK_NB) != 0 else { return }
        // The file holds the pid of the last writer; a reader holding a shared lock leaves
        // no trace, hence "or a reader".
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let holder = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : "?"
        release()
        let who = operation == LOCK_EX ? "pid \(holder), or a reader" : "pid \(holder)"
        throw LogbookError(
            .inUse, "the directory is open in another process (\(who))", path: directory)
    }

    /// Releases the lock (also done by `deinit`).
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)  // closing the descriptor drops the flock
        descriptor = -1
    }

    deinit { release() }
}
