import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file system through POSIX calls: `pread`/`pwrite`, `Platform.syncData`
/// (`fdatasync`; `F_FULLFSYNC` on Darwin), `rename`, and a directory descriptor's sync for
/// directory durability.
public struct PosixFileSystem: FileSystem {
    /// Creates the POSIX file system.
    public init() {}

    /// Opens with `O_CLOEXEC`; `createNew` adds `O_CREAT | O_EXCL` and mode 0644. Only a
    /// regular file is opened: a directory the log does not trust may hold a symbolic link
    /// where a segment should be, and a writer would cut or overwrite its target outside the
    /// directory (a torn tail "repaired" in someone's file), or a FIFO that blocks the open
    /// for ever. `O_NOFOLLOW` refuses the link and `O_NONBLOCK` the wait (it changes nothing
    /// for a regular file); anything else is refused after `fstat`.
    public func open(_ path: String, mode: FileOpenMode) throws(StorageError) -> any StorageFile {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        let descriptor = retryingOnInterrupt {
            Platform.openFile(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
        guard descriptor >= 0 else {
            if Platform.lastError == ELOOP { throw .notARegularFile(path, "a symbolic link") }
            throw .systemCall("open", path: path)
        }
        var status = stat()
        let kind = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : 0
        guard kind == S_IFREG else {
            _ = Platform.closeFile(descriptor)  // opened to be refused: nothing written
            throw .notARegularFile(path, kind == S_IFDIR ? "a directory" : "not a regular file")
        }
        return PosixFile(path: path, descriptor: descriptor)
    }

    /// Lists with `opendir`/`readdir`; sorted by name.
    public func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
        guard let directory = opendir(path) else { throw .systemCall("opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(
                    to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)
                ) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// `mkdir -p`, then fsyncs each directory it created and that directory's parent.
    public func createDirectory(_ path: String) throws(StorageError) {
        if exists(path) { return }
        let parent = parentDirectory(of: path)
        if parent != path, !exists(parent) { try createDirectory(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .systemCall("mkdir", path: path)
        }
        try syncDirectory(parent)
    }

    /// `access(F_OK)`.
    public func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// `unlink`.
    public func removeFile(_ path: String) throws(StorageError) {
        guard unlink(path) == 0 else { throw .systemCall("unlink", path: path) }
    }

    /// `rename(2)`.
    public func rename(_ source: String, to destination: String) throws(StorageError) {
        guard Platform.renameFile(source, destination) == 0 else {
            throw .systemCall("rename to \(destination)", path: source)
        }
    }

    /// Opens the directory read-only and `fsync`s it.
    public func syncDirectory(_ path: String) throws(StorageError) {
        let descriptor = retryingOnInterrupt {
            Platform.openFile(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw .systemCall("open directory", path: path) }
        // A read-only descriptor: nothing to lose on close.
        defer { _ = Platform.closeFile(descriptor) }
        guard retryingOnInterrupt({ Platform.syncDirectory(descriptor) }) == 0 else {
            throw .systemCall("fsync directory", path: path)
        }
    }

    /// A `flock` on `DIRECTORY/lock` (see `PosixDirectoryLease`).
    public func lockDirectory(_ directory: String, exclusive: Bool) throws(StorageError)
        -> (any DirectoryLease)?
    {
        try PosixDirectoryLease.take(directory: directory, exclusive: exclusive)
    }

    /// A shared `flock` on the directory, tried once and dropped at once.
    public func directoryHasWriter(_ directory: String) -> Bool {
        PosixDirectoryLease.isHeldExclusively(directory)
    }

    /// `stat(2)`'s device and inode; nil when nothing (or no regular file) is there.
    public func identity(ofFileAt path: String) -> FileIdentity? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileIdentity(status)
    }
}

/// An open POSIX file descriptor.
///
/// `sync` and `close` may race (a group committer syncing a segment that a roll is closing):
/// a lock orders them, and syncing a closed file whose writes were all synced before it was
/// closed succeeds, because there is nothing left to make durable.
final class PosixFile: StorageFile, @unchecked Sendable {
    // @unchecked: `descriptor` and `hasUnsyncedWrites` are guarded by `lock`.
    let path: String
    private let lock = NSLock()
    private var descriptor: Int32
    private var hasUnsyncedWrites = false

    init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    private func openDescriptor(_ operation: String) throws(StorageError) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0 else {
            throw StorageError(.closed, "\(operation) on a closed file", path: path)
        }
        return descriptor
    }

    func read(at offset: Int64, count: Int) throws(StorageError) -> [UInt8] {
        precondition(count >= 0 && offset >= 0, "read of \(count) bytes at \(offset)")
        if count == 0 { return [] }
        let descriptor = try openDescriptor("read")
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(descriptor, base + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .systemCall("pread", path: path, byteOffset: offset + Int64(done))
            }
            if result == 0 { break }
            done += result
        }
        if done < count { bytes.removeSubrange(done...) }
        return bytes
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(StorageError) {
        guard let base = bytes.baseAddress else { return }
        let descriptor = try openDescriptor("write")
        lock.lock()
        hasUnsyncedWrites = true
        lock.unlock()
        var done = 0
        while done < bytes.count {
            let result = pwrite(
                descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                throw .systemCall("pwrite", path: path, byteOffset: offset + Int64(done))
            }
            done += result
        }
    }

    /// A closed file has nothing left to sync only when every write was synced before it
    /// was closed; otherwise `operation` on it must fail (called with the lock held).
    private func requireNothingUnsynced(_ operation: String) throws(StorageError) {
        guard !hasUnsyncedWrites else {
            throw StorageError(
                .closed, "\(operation) of a closed file with unsynced writes", path: path)
        }
    }

    func sync() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        if descriptor < 0 {
            try requireNothingUnsynced("sync")
            return
        }
        hasUnsyncedWrites = false
        let descriptor = self.descriptor
        guard retryingOnInterrupt({ Platform.syncData(descriptor) }) == 0 else {
            hasUnsyncedWrites = true
            throw .systemCall("fdatasync", path: path)
        }
    }

    func startWriteback(at offset: Int64, count: Int64) {
        guard offset >= 0, count > 0, let descriptor = try? openDescriptor("write-back") else {
            return
        }
        _ = Platform.startWriteback(descriptor, offset: offset, count: count)
    }

    func syncHandle() throws(StorageError) -> any StorageFile {
        // Under the lock, so the file cannot be closed (and its path reused) meanwhile.
        lock.lock()
        defer { lock.unlock() }
        if descriptor < 0 {
            try requireNothingUnsynced("sync handle")
            return self
        }
        let second = retryingOnInterrupt { Platform.openFile(path, O_RDONLY | O_CLOEXEC) }
        guard second >= 0 else { throw .systemCall("open", path: path) }
        var mine = stat()
        var theirs = stat()
        guard fstat(descriptor, &mine) == 0, fstat(second, &theirs) == 0 else {
            _ = Platform.closeFile(second)
            throw .systemCall("fstat", path: path)
        }
        guard mine.st_dev == theirs.st_dev, mine.st_ino == theirs.st_ino else {
            _ = Platform.closeFile(second)
            throw StorageError(
                .io, "the file was replaced at its path while open; cannot sync it", path: path)
        }
        return PosixFile(path: path, descriptor: second)
    }

    func truncate(to size: Int64) throws(StorageError) {
        let descriptor = try openDescriptor("truncate")
        guard retryingOnInterrupt({ ftruncate(descriptor, off_t(size)) }) == 0 else {
            throw .systemCall("ftruncate", path: path, byteOffset: size)
        }
    }

    func size() throws(StorageError) -> Int64 {
        let descriptor = try openDescriptor("size")
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .systemCall("fstat", path: path) }
        return Int64(status.st_size)
    }

    var identity: FileIdentity? {
        guard let descriptor = try? openDescriptor("fstat") else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    func close() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0 else { return }
        let closing = descriptor
        descriptor = -1
        // No retry on EINTR: on Linux the descriptor is released even then.
        guard Platform.closeFile(closing) == 0 else { throw .systemCall("close", path: path) }
    }
}

/// Runs a system call again while it fails with EINTR.
func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// The directory part of a path ("." for a bare name).
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}

/// The text of an errno value.
func describeErrno(_ number: Int32) -> String {
    String(cString: strerror(number))
}

extension StorageError {
    /// A path in the log's directory that is not a regular file (`what` it is instead).
    static func notARegularFile(_ path: String, _ what: String) -> StorageError {
        StorageError(
            .unsupported,
            "is \(what); a Logbook opens only the regular files in its directory (put the "
                + "file itself there)", path: path)
    }

    /// An `.io` error for a failed system call, capturing the current errno.
    static func systemCall(_ call: String, path: String, byteOffset: Int64? = nil) -> StorageError {
        let number = Platform.lastError
        return StorageError(
            number == ENOENT ? .notFound : .io, "\(call) failed", path: path,
            byteOffset: byteOffset, errno: number)
    }
}

extension FileIdentity {
    /// The identity `stat` gives. `truncatingIfNeeded`: `dev_t` is signed on Darwin.
    init(_ status: stat) {
        self.init(
            device: UInt64(truncatingIfNeeded: status.st_dev),
            inode: UInt64(truncatingIfNeeded: status.st_ino))
    }
}
