import LogbookTesting

/// A copy of a directory on the simulated file system, to bring back later as a restore
/// from an older backup does: every file, by name.
struct DirectoryCopy {
    let files: [(name: String, bytes: [UInt8])]

    /// Copies every file of `directory`.
    init(of directory: String, on fileSystem: SimulatedFileSystem) throws {
        files = try fileSystem.contentsOfDirectory(directory).compactMap { name in
            fileSystem.contents(of: directory + "/" + name).map { (name, $0) }
        }
    }

    /// Replaces every file of `directory` with the copy's, but `peers.json`, which stays as
    /// it is: the log restored from an older copy while the ledger was not.
    func restoreKeepingLedger(into directory: String, on fileSystem: SimulatedFileSystem)
        throws
    {
        for name in try fileSystem.contentsOfDirectory(directory) where name != "peers.json" {
            try fileSystem.removeFile(directory + "/" + name)
        }
        for (name, bytes) in files where name != "peers.json" {
            try fileSystem.replaceFile(directory + "/" + name, with: bytes, durable: true)
        }
    }
}
