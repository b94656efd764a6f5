/// The file operations the log needs, and nothing more, so a simulated implementation can
/// inject torn writes, lost unsynced data and bit flips.
///
/// Paths are plain strings. Every method throws `StorageError` naming the path.
public protocol FileSystem: Sendable {
    /// Opens a file; see `FileOpenMode`.
    func open(_ path: String, mode: FileOpenMode) throws(StorageError) -> any StorageFile
    /// Names (not paths) of the directory's entries, without `.` and `..`, sorted.
    func contentsOfDirectory(_ path: String) throws(StorageError) -> [String]
    /// Creates a directory and any missing parents; succeeds if it already exists.
    func createDirectory(_ path: String) throws(StorageError)
    /// True when something exists at `path`.
    func exists(_ path: String) -> Bool
    /// Removes a file.
    func removeFile(_ path: String) throws(StorageError)
    /// Renames a file atomically, replacing `destination` if present. Not durable until the
    /// directory is synced.
    func rename(_ source: String, to destination: String) throws(StorageError)
    /// Makes the directory's entries (creations, renames, removals) durable.
    func syncDirectory(_ path: String) throws(StorageError)
    /// Takes the lock of a log directory without waiting: exclusive for a writer, shared for
    /// a reader (nil when the directory has no lock file, as no writer ever opened it or it
    /// lies on a read-only mount). Throws `.inUse` naming the holder when it is taken.
    func lockDirectory(_ directory: String, exclusive: Bool) throws(StorageError)
        -> (any DirectoryLease)?
    /// Whether a writer holds `directory`'s lock now, asked without waiting and without
    /// keeping anything: a reader beside a writer serves only what the writer made durable.
    func directoryHasWriter(_ directory: String) -> Bool
    /// Which file is at `path` now; nil when there is none.
    func identity(ofFileAt path: String) -> FileIdentity?
}

/// How to open a file.
public enum FileOpenMode: Sendable {
    /// Read only; the file must exist.
    case read
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write; the file must not exist (it is created).
    case createNew
}

/// An open file: positional reads and writes, so no shared cursor exists to get wrong.
///
/// Isolation: not thread-safe for concurrent mutation; the log serializes writers.
public protocol StorageFile: AnyObject, Sendable {
    /// The path the file was opened with.
    var path: String { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws(StorageError) -> [UInt8]
    /// Writes all of `bytes` at `offset`, extending the file as needed.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(StorageError)
    /// Makes written data durable (`fdatasync`).
    func sync() throws(StorageError)
    /// Asks for the written bytes in `offset..<offset + count` to start going to the device
    /// now, without waiting and without making them durable; best effort, never throws. A
    /// later `sync()` still reports every write-back error. Default: nothing.
    func startWriteback(at offset: Int64, count: Int64)
    /// A second handle on this file, with its own open file description, for syncing it from
    /// another thread while this one goes on writing. On Linux a write-back error is reported
    /// once per open file description, to whichever sync asks first: two syncs through one
    /// handle could hand the error to one and success to the other, though both covered the
    /// lost bytes. Through its own handle each sync sees every error since the handle was
    /// made. The handle syncs and closes only. A closed file whose writes were all synced
    /// answers with itself (its sync has nothing left to do); a closed file with unsynced
    /// writes throws `.closed`.
    func syncHandle() throws(StorageError) -> any StorageFile
    /// Cuts or extends the file to `size` bytes.
    func truncate(to size: Int64) throws(StorageError)
    /// The file's current size in bytes.
    func size() throws(StorageError) -> Int64
    /// Closes the file; later calls fail.
    func close() throws(StorageError)
    /// Which file this handle holds (see `FileIdentity`); nil when unknown.
    var identity: FileIdentity? { get }
}

extension StorageFile {
    /// Nothing: a file that cannot start write-back early writes it all at its sync.
    public func startWriteback(at offset: Int64, count: Int64) {}

    /// Unknown: a file of a test's own.
    public var identity: FileIdentity? { nil }

    /// Writes an array of bytes at `offset`.
    public func write(_ bytes: [UInt8], at offset: Int64) throws(StorageError) {
        var failure: StorageError?
        bytes.withUnsafeBytes { buffer in
            do throws(StorageError) { try write(buffer, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

extension FileSystem {
    /// Replaces the file at `path` with `bytes` through a temporary file and a rename, so a
    /// reader (or a crash) sees the old contents or the new, never a mix. With `durable`, the
    /// file is synced before the rename and its directory after it.
    ///
    /// With `durable` and not `syncsDirectory`, the file is synced but the rename is not:
    /// after a power cut the path holds these contents or older ones, always whole. For a
    /// record of progress that is as true when older (a cursor that may only lag), it saves
    /// one of the two syncs.
    public func replaceFile(
        _ path: String, with bytes: [UInt8], durable: Bool, syncsDirectory: Bool = true
    ) throws(StorageError) {
        let temporaryPath = path + SegmentFileName.temporarySuffix
        if exists(temporaryPath) { try removeFile(temporaryPath) }
        let file = try open(temporaryPath, mode: .createNew)
        try file.write(bytes, at: 0)
        if durable { try file.sync() }
        try file.close()
        try rename(temporaryPath, to: path)
        if durable, syncsDirectory, let slash = path.lastIndex(of: "/") {
            try syncDirectory(String(path[..<slash]))
        }
    }
}
