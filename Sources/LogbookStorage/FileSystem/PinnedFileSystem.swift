import Foundation

/// One log directory as a reader found it, held still while a writer in another process goes
/// on: the listing is taken once, and every file is opened once and kept open, so a segment
/// a compaction renames over or removes afterwards is still read as it was (an open
/// descriptor keeps its inode). Writes throw `.readOnly`.
///
/// Nothing makes the first look itself atomic: the writer may rename between the listing
/// and an open. `isUnchanged()` tells afterwards whether the directory still lists the same
/// names with the same files at the paths held; when it does, what was read is the directory
/// as it stood then, which is a state a crash could have left, and recovery's rules hold for
/// it (`Log.openReadOnly` retries until it is).
///
/// The files close when the last user (the log, its cursors) lets go.
final class PinnedFileSystem: FileSystem, @unchecked Sendable {
    // @unchecked: `listing` and `files` are guarded by `lock`.
    let base: any FileSystem
    let directory: String
    private let lock = NSLock()
    private var listing: [String]?
    private var files: [String: any StorageFile] = [:]

    init(base: any FileSystem, directory: String) {
        self.base = base
        self.directory = directory
    }

    deinit {
        for file in files.values { try? file.close() }  // read-only: nothing to lose
    }

    /// The file at `path`, opened the first time and held from then on.
    func open(_ path: String, mode: FileOpenMode) throws(StorageError) -> any StorageFile {
        guard mode == .read else { throw refusal("open for writing", path) }
        lock.lock()
        defer { lock.unlock() }
        if let held = files[path] { return PinnedFile(held, owner: self) }
        let file = try base.open(path, mode: .read)
        files[path] = file
        return PinnedFile(file, owner: self)
    }

    /// The log directory's listing as first taken; other directories as they are.
    func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
        guard path == directory else { return try base.contentsOfDirectory(path) }
        lock.lock()
        defer { lock.unlock() }
        if let listing { return listing }
        let names = try base.contentsOfDirectory(path)
        listing = names
        return names
    }

    func exists(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if files[path] != nil { return true }
        if let listing, parent(of: path) == directory {
            return listing.contains(String(path.dropFirst(directory.count + 1)))
        }
        return base.exists(path)
    }

    /// True when the directory lists the segments and swap files it listed at first, and
    /// every path held names the file held for it. Other names (snapshots, a compaction's
    /// `.cleaned` output, temporary files) come and go without changing the log.
    func isUnchanged() -> Bool {
        lock.lock()
        let (names, held) = (listing, files)
        lock.unlock()
        if let names {
            guard let now = try? base.contentsOfDirectory(directory),
                now.filter(Self.isStructural) == names.filter(Self.isStructural)
            else { return false }
        }
        return held.allSatisfy { path, file in
            guard let identity = file.identity else { return false }
            return base.identity(ofFileAt: path) == identity
        }
    }

    func createDirectory(_ path: String) throws(StorageError) {
        throw refusal("create a directory", path)
    }
    func removeFile(_ path: String) throws(StorageError) { throw refusal("remove", path) }
    func rename(_ source: String, to destination: String) throws(StorageError) {
        throw refusal("rename", source)
    }
    func syncDirectory(_ path: String) throws(StorageError) {}
    func lockDirectory(_ directory: String, exclusive: Bool) throws(StorageError)
        -> (any DirectoryLease)?
    {
        try base.lockDirectory(directory, exclusive: exclusive)
    }
    func directoryHasWriter(_ directory: String) -> Bool { base.directoryHasWriter(directory) }
    func identity(ofFileAt path: String) -> FileIdentity? {
        lock.withLock { files[path]?.identity } ?? base.identity(ofFileAt: path)
    }

    private static func isStructural(_ name: String) -> Bool {
        SegmentFileName.baseOffset(ofSegment: name) != nil
            || name.hasSuffix(SegmentFileName.swapSuffix)
    }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private func refusal(_ operation: String, _ path: String) -> StorageError {
        StorageError(.readOnly, "\(operation) in a log opened read-only", path: path)
    }
}

/// A held file as its users see it: closing it closes nothing (the `PinnedFileSystem` holds
/// the descriptor), and every write throws `.readOnly`.
final class PinnedFile: StorageFile, @unchecked Sendable {
    // @unchecked: immutable; the held file is thread-safe for reads.
    private let held: any StorageFile
    /// Kept so that the descriptor outlives every handle on it.
    private let owner: PinnedFileSystem

    init(_ held: any StorageFile, owner: PinnedFileSystem) {
        self.held = held
        self.owner = owner
    }

    var path: String { held.path }
    var identity: FileIdentity? { held.identity }
    func read(at offset: Int64, count: Int) throws(StorageError) -> [UInt8] {
        try held.read(at: offset, count: count)
    }
    func size() throws(StorageError) -> Int64 { try held.size() }
    func close() throws(StorageError) {}
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(StorageError) {
        throw StorageError(.readOnly, "write to a log opened read-only", path: path)
    }
    func sync() throws(StorageError) {}
    func syncHandle() throws(StorageError) -> any StorageFile { self }
    func truncate(to size: Int64) throws(StorageError) {
        throw StorageError(.readOnly, "truncate in a log opened read-only", path: path)
    }
}
