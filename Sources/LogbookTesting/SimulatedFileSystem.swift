import Foundation
import LogbookStorage

/// An in-memory `FileSystem` with a stated fault model, for crash and corruption tests.
///
/// Fault model (what a power cut may do to a POSIX file system, at its worst):
/// - File data written since the file's last `sync()` is volatile. At `crash(using:)` each
///   file keeps its synced bytes plus a random prefix of the later operations, in order; the
///   last operation kept may be torn at any byte. Nothing written later survives an earlier
///   loss, and nothing is invented.
/// - Directory changes (create, rename, remove) are volatile until `syncDirectory` of the
///   parent; at a crash every unsynced directory change is lost.
/// - `flipBit(path:byte:bit:)` damages stored bytes (durable and current) in place.
/// - `failOperations(after:)` makes every write, sync and rename fail with `.io` after that
///   many more succeed, as a full or failing disk would.
///
/// Isolation: thread-safe; one lock guards the whole tree.
public final class SimulatedFileSystem: FileSystem, @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    final class Node {
        /// The node's inode number: its `FileIdentity`, never reused.
        let serial: UInt64
        init(serial: UInt64) { self.serial = serial }
        var current: [UInt8] = []
        var durable: [UInt8] = []
        var unsynced: [Operation] = []
    }

    enum Operation {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)
    }

    let lock = NSLock()
    var namespace: [String: Node] = [:]
    var durableNamespace: [String: Node] = [:]
    var directories: Set<String> = ["/"]
    var operationsBeforeFailure: Int?
    /// Directory locks held: -1 for an exclusive holder, else the number of shared ones.
    var directoryLocks: [String: Int] = [:]
    var nodesMade: UInt64 = 0
    /// Bumped by each crash, so leases from before it release nothing.
    var lockGeneration = 0
    /// Operations performed (writes, syncs, renames), for choosing crash points.
    public private(set) var operationCount = 0
    /// Bytes returned by reads so far, so tests can check that a read seeks.
    public var bytesRead: Int {
        lock.lock()
        defer { lock.unlock() }
        return readCount
    }
    var readCount = 0
    /// Every write-back a file asked to start (`StorageFile.startWriteback`), in order: it
    /// changes nothing here (unsynced bytes may survive a crash or not, started or not).
    public var writebackRequests: [WritebackRequest] {
        lock.lock()
        defer { lock.unlock() }
        return writebacks
    }
    var writebacks: [WritebackRequest] = []

    /// A file's bytes whose write-back was asked to start.
    public struct WritebackRequest: Equatable, Sendable {
        /// The file.
        public var path: String
        /// Where the bytes start.
        public var offset: Int64
        /// How many there are.
        public var count: Int64
    }

    /// An empty file system with only the root directory.
    public init() {}

    // MARK: Faults

    /// Simulates a power cut: applies the fault model with choices drawn from `random`.
    public func crash(using random: inout SeededGenerator) {
        lock.lock()
        defer { lock.unlock() }
        var survivors: [ObjectIdentifier: Node] = [:]
        for node in durableNamespace.values where survivors[ObjectIdentifier(node)] == nil {
            var bytes = node.durable
            let kept = Int.random(in: 0...node.unsynced.count, using: &random)
            for (index, operation) in node.unsynced.prefix(kept).enumerated() {
                let isLast = index == kept - 1
                switch operation {
                case .truncate(let size):
                    Self.resize(&bytes, to: size)
                case .write(let offset, let data):
                    let length =
                        isLast ? Int.random(in: 0...data.count, using: &random) : data.count
                    Self.apply(Array(data.prefix(length)), at: offset, to: &bytes)
                }
            }
            node.current = bytes
            node.durable = bytes
            node.unsynced = []
            survivors[ObjectIdentifier(node)] = node
        }
        namespace = durableNamespace
        operationsBeforeFailure = nil
        // The process died with the power: its directory locks went with it.
        directoryLocks = [:]
        lockGeneration += 1
    }

    /// Flips one bit of a stored file, in both its current and durable contents.
    public func flipBit(path: String, byte: Int, bit: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let node = namespace[path] else { return }
        if byte < node.current.count { node.current[byte] ^= UInt8(1 << bit) }
        if byte < node.durable.count { node.durable[byte] ^= UInt8(1 << bit) }
    }

    /// After `count` more writes, syncs and renames succeed, every later one fails.
    public func failOperations(after count: Int) {
        lock.lock()
        operationsBeforeFailure = count
        lock.unlock()
    }

    /// Until `stopFailingOperations()`, every write, sync, rename and creation of a path
    /// `isFull` says yes to fails with ENOSPC, and every other succeeds: a disk with room
    /// left in the files already written (the active segment's zeros ahead) and none for
    /// new ones.
    public func failOperations(on isFull: @escaping @Sendable (String) -> Bool) {
        lock.withLock { fullPaths = isFull }
    }

    /// Ends `failOperations(after:)` and `failOperations(on:)`: every later operation
    /// succeeds again (the disk has room).
    public func stopFailingOperations() {
        lock.withLock {
            operationsBeforeFailure = nil
            fullPaths = nil
        }
    }
    private var fullPaths: (@Sendable (String) -> Bool)?

    /// Throws ENOSPC for a path `failOperations(on:)` names (lock held by the caller).
    private func requireRoom(_ path: String) throws(StorageError) {
        guard let fullPaths, fullPaths(path) else { return }
        throw StorageError(.io, "injected full disk", path: path, errno: 28)
    }

    /// A read-only mount: while set, opening for writing, creating, removing and renaming
    /// files, creating and syncing directories all fail with EROFS.
    public var isReadOnlyMount: Bool {
        get { lock.withLock { readOnlyMount } }
        set { lock.withLock { readOnlyMount = newValue } }
    }
    private var readOnlyMount = false

    /// Throws EROFS on a read-only mount (lock held by the caller).
    private func requireWritableMount(_ path: String) throws(StorageError) {
        guard readOnlyMount else { return }
        throw StorageError(.io, "read-only file system", path: path, errno: 30)
    }

    /// The current bytes of a file, or nil.
    public func contents(of path: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return namespace[path]?.current
    }

    // MARK: FileSystem

    /// Opens a file in memory; `createNew` needs the parent directory.
    public func open(_ path: String, mode: FileOpenMode) throws(StorageError) -> any StorageFile {
        lock.lock()
        defer { lock.unlock() }
        if mode != .read { try requireWritableMount(path) }
        switch mode {
        case .read, .readWrite:
            guard let node = namespace[path] else {
                throw StorageError(.notFound, "no such file", path: path)
            }
            return SimulatedFile(
                fileSystem: self, node: node, path: path, isWritable: mode == .readWrite)
        case .createNew:
            try requireRoom(path)
            guard namespace[path] == nil else {
                throw StorageError(.alreadyExists, "file exists", path: path)
            }
            guard directories.contains(parent(of: path)) else {
                throw StorageError(.notFound, "no parent directory", path: path)
            }
            nodesMade += 1
            let node = Node(serial: nodesMade)
            namespace[path] = node
            return SimulatedFile(fileSystem: self, node: node, path: path, isWritable: true)
        }
    }

    /// Names in the directory as of now (durable or not), sorted.
    public func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        guard directories.contains(path) else {
            throw StorageError(.notFound, "no such directory", path: path)
        }
        return namespace.keys.filter { parent(of: $0) == path }.map {
            String($0.dropFirst(path.count + 1))
        }.sorted()
    }

    /// Directories themselves are durable at once: the tests exercise files, not mkdir.
    public func createDirectory(_ path: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try requireWritableMount(path)
        var current = path
        while current != "/" && !current.isEmpty {
            directories.insert(current)
            current = parent(of: current)
        }
    }

    /// True for a current file or a directory.
    public func exists(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return namespace[path] != nil || directories.contains(path)
    }

    /// Removes the name; durable only after `syncDirectory`.
    public func removeFile(_ path: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try requireWritableMount(path)
        guard namespace.removeValue(forKey: path) != nil else {
            throw StorageError(.notFound, "no such file", path: path)
        }
    }

    /// Moves the name; durable only after `syncDirectory`. Counts as an operation.
    public func rename(_ source: String, to destination: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try requireWritableMount(source)
        try countOperation(path: source)
        guard let node = namespace.removeValue(forKey: source) else {
            throw StorageError(.notFound, "no such file", path: source)
        }
        namespace[destination] = node
    }

    /// Makes the directory's current names durable. Counts as an operation.
    public func syncDirectory(_ path: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try requireWritableMount(path)
        try countOperation(path: path)
        for key in Set(namespace.keys).union(durableNamespace.keys) where parent(of: key) == path {
            durableNamespace[key] = namespace[key]
        }
    }

    /// Takes a directory lock in memory, with `flock`'s rules: one exclusive holder or any
    /// number of shared ones. Creates no lock file, so read-only checks of a directory's
    /// bytes are unaffected; a crash drops every lock.
    public func lockDirectory(_ directory: String, exclusive: Bool) throws(StorageError)
        -> (any DirectoryLease)?
    {
        lock.lock()
        defer { lock.unlock() }
        let holders = directoryLocks[directory] ?? 0
        // holders: -1 for an exclusive holder, else the number of shared ones.
        guard exclusive ? holders == 0 : holders >= 0 else {
            throw StorageError(
                .inUse, "the directory is open in another process (simulated)", path: directory)
        }
        directoryLocks[directory] = exclusive ? -1 : holders + 1
        return SimulatedDirectoryLease(
            fileSystem: self, directory: directory, exclusive: exclusive,
            generation: lockGeneration)
    }

    /// Whether an exclusive holder has the directory's lock.
    public func directoryHasWriter(_ directory: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return directoryLocks[directory] == -1
    }

    /// The node at `path`, by its serial number.
    public func identity(ofFileAt path: String) -> FileIdentity? {
        lock.lock()
        defer { lock.unlock() }
        return namespace[path].map { FileIdentity(device: 0, inode: $0.serial) }
    }

    /// Drops one holder of a directory lock taken in `generation` (none after a crash).
    func releaseDirectoryLock(_ directory: String, exclusive: Bool, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard generation == lockGeneration, let holders = directoryLocks[directory] else { return }
        let remaining = exclusive ? 0 : holders - 1
        directoryLocks[directory] = remaining > 0 ? remaining : nil
    }

    // MARK: Shared with SimulatedFile (lock held by caller)

    func countOperation(path: String) throws(StorageError) {
        operationCount += 1
        try requireRoom(path)
        if let remaining = operationsBeforeFailure {
            if remaining <= 0 {
                throw StorageError(.io, "injected I/O failure", path: path, errno: 5)
            }
            operationsBeforeFailure = remaining - 1
        }
    }

    static func apply(_ data: [UInt8], at offset: Int, to bytes: inout [UInt8]) {
        if bytes.count < offset + data.count { resize(&bytes, to: offset + data.count) }
        bytes.replaceSubrange(offset..<(offset + data.count), with: data)
    }

    static func resize(_ bytes: inout [UInt8], to size: Int) {
        if size < bytes.count {
            bytes.removeSubrange(size...)
        } else {
            bytes.append(contentsOf: Array(repeating: 0, count: size - bytes.count))
        }
    }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A directory lock of a `SimulatedFileSystem`.
final class SimulatedDirectoryLease: DirectoryLease, @unchecked Sendable {
    // @unchecked: `released` is guarded by `lock`; the rest is immutable.
    private let lock = NSLock()
    private let fileSystem: SimulatedFileSystem
    private let directory: String
    private let exclusive: Bool
    private let generation: Int
    private var released = false

    init(fileSystem: SimulatedFileSystem, directory: String, exclusive: Bool, generation: Int) {
        self.fileSystem = fileSystem
        self.directory = directory
        self.exclusive = exclusive
        self.generation = generation
    }

    func release() {
        let first = lock.withLock {
            defer { released = true }
            return !released
        }
        if first {
            fileSystem.releaseDirectoryLock(directory, exclusive: exclusive, generation: generation)
        }
    }

    deinit { release() }
}
