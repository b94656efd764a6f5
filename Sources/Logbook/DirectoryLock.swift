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
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            let holder = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : "?"
            close(descriptor)
            throw LogbookError(
                .inUse, "the directory is open in another process (pid \(holder))", path: directory)
        }
        let pid = Array(String(getpid()).utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Releases the lock (also done by `deinit`).
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)  // closing the descriptor drops the flock
        descriptor = -1
    }

    deinit { release() }
}
