import LogbookStorage

/// A handle on a `SimulatedFileSystem` file; see its fault model.
final class SimulatedFile: StorageFile, @unchecked Sendable {
    // @unchecked: state lives in the file system's nodes, guarded by its lock.
    let path: String
    private let fileSystem: SimulatedFileSystem
    private let node: SimulatedFileSystem.Node
    private let isWritable: Bool
    private var isClosed = false

    init(
        fileSystem: SimulatedFileSystem, node: SimulatedFileSystem.Node, path: String,
        isWritable: Bool
    ) {
        self.fileSystem = fileSystem
        self.node = node
        self.path = path
        self.isWritable = isWritable
    }

    private func withLock<R>(
        _ operation: String, write: Bool = false, _ body: () throws(StorageError) -> R
    ) throws(StorageError) -> R {
        fileSystem.lock.lock()
        defer { fileSystem.lock.unlock() }
        guard !isClosed else {
            throw StorageError(.closed, "\(operation) on a closed file", path: path)
        }
        if write && !isWritable {
            throw StorageError(.io, "\(operation) on a read-only file", path: path, errno: 9)
        }
        return try body()
    }

    func read(at offset: Int64, count: Int) throws(StorageError) -> [UInt8] {
        try withLock("read") { () throws(StorageError) in
            let start = min(Int(offset), node.current.count)
            let end = min(start + count, node.current.count)
            fileSystem.readCount += end - start
            return Array(node.current[start..<end])
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(StorageError) {
        try withLock("write", write: true) { () throws(StorageError) in
            try fileSystem.countOperation(path: path)
            let data = Array(bytes)
            SimulatedFileSystem.apply(data, at: Int(offset), to: &node.current)
            node.unsynced.append(.write(offset: Int(offset), bytes: data))
        }
    }

    func sync() throws(StorageError) {
        fileSystem.lock.lock()
        defer { fileSystem.lock.unlock() }
        // A closed file whose writes were all synced has nothing left to sync (see PosixFile).
        if isClosed && node.unsynced.isEmpty { return }
        guard !isClosed else {
            throw StorageError(.closed, "sync of a closed file with unsynced writes", path: path)
        }
        try fileSystem.countOperation(path: path)
        node.durable = node.current
        node.unsynced = []
    }

    func startWriteback(at offset: Int64, count: Int64) {
        fileSystem.lock.lock()
        defer { fileSystem.lock.unlock() }
        guard !isClosed else { return }
        fileSystem.writebacks.append(.init(path: path, offset: offset, count: count))
    }

    func syncHandle() throws(StorageError) -> any StorageFile {
        fileSystem.lock.lock()
        defer { fileSystem.lock.unlock() }
        if isClosed && node.unsynced.isEmpty { return self }
        guard !isClosed else {
            throw StorageError(
                .closed, "sync handle on a closed file with unsynced writes", path: path)
        }
        return SimulatedFile(fileSystem: fileSystem, node: node, path: path, isWritable: false)
    }

    func truncate(to size: Int64) throws(StorageError) {
        try withLock("truncate", write: true) { () throws(StorageError) in
            try fileSystem.countOperation(path: path)
            SimulatedFileSystem.resize(&node.current, to: Int(size))
            node.unsynced.append(.truncate(size: Int(size)))
        }
    }

    func size() throws(StorageError) -> Int64 {
        try withLock("size") { Int64(node.current.count) }
    }

    var identity: FileIdentity? { FileIdentity(device: 0, inode: node.serial) }

    func close() throws(StorageError) {
        fileSystem.lock.lock()
        isClosed = true
        fileSystem.lock.unlock()
    }
}
