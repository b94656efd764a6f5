import Foundation
import Logbook
import LogbookStorage
import LogbookTesting
import Testing

// One log, one process: a second open of a directory that is open is refused with the
// holder's pid; closing releases it.
@Suite struct DirectoryLockTests {
    @Test func aSecondOpenIsRefusedUntilTheFirstCloses() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try Logbook.open(directory: directory.path, nodeId: 1)
        let refusal = #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path)
        }
        #expect(refusal?.code == .inUse)
        #expect(
            refusal?.message.contains("pid \(ProcessInfo.processInfo.processIdentifier)") == true)
        let text = refusal.map { "\($0)" } ?? ""
        #expect(text.hasPrefix("inUse: \(directory.path)"), "\(text)")
        #expect(!text.contains("cause:"), "the refusal says its holder once: \(text)")
        try first.close()
        let second = try Logbook.open(directory: directory.path)
        try second.close()
    }
}

// The lock lives in storage: every writable `Log.open` takes it, whatever opens the log,
// and the simulated file system keeps the same rules (dropped by a power cut).
@Suite struct StorageDirectoryLockTests {
    @Test func aWritableLogOpenExcludesWritersButNotReaders() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Log.open(directory: directory.path)
        let refusal = #expect(throws: StorageError.self) {
            _ = try Log.open(directory: directory.path)
        }
        #expect(refusal?.code == .inUse)
        _ = try writer.append(Array("synced".utf8), version: 1)
        try writer.sync()
        _ = try writer.append(Array("flushed, not synced".utf8), version: 2)
        try writer.flush()
        let reader = try Log.openReadOnly(directory: directory.path)
        #expect(reader.nextOffset == 1, "a reader beside a writer serves what it synced")
        try writer.close()
        let readers = try (0..<2).map { _ in try Log.openReadOnly(directory: directory.path) }
        #expect(readers.map(\.nextOffset) == [2, 2])
        let second = try Log.open(directory: directory.path)
        #expect(second.nextOffset == 2, "a writer opens beside readers")
        for reader in readers + [reader] { try reader.close() }
        try second.close()
    }

    /// The exclusion is the directory's own lock: deleting the lock file, putting a new one
    /// in its place or renaming the directory lets no second writer in.
    @Test func theLockFileDeletedReplacedOrTheDirectoryRenamedStillExcludes() throws {
        let parent = TemporaryDirectory()
        defer { parent.remove() }
        let path = parent.path + "/log"
        let writer = try Log.open(directory: path)
        let lockFile = path + "/" + directoryLockFileName
        func expectRefused(at directory: String, _ step: String) {
            let refusal = #expect(throws: StorageError.self, "\(step)") {
                _ = try Log.open(directory: directory)
            }
            #expect(refusal?.code == .inUse, "\(step)")
        }
        try FileManager.default.removeItem(atPath: lockFile)
        expectRefused(at: path, "lock file deleted")
        #expect(FileManager.default.createFile(atPath: lockFile, contents: Data("1".utf8)))
        expectRefused(at: path, "lock file replaced")
        let renamed = parent.path + "/renamed"
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        expectRefused(at: renamed, "directory renamed")
        try writer.close()
        try Log.open(directory: renamed).close()
    }

    @Test func aSimulatedDirectoryLockFollowsTheSameRulesAndDiesWithThePower() throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem)
        let first = try Logbook.open(directory: "/data", nodeId: 1, options: options)
        let refusal = #expect(throws: LogbookError.self) {
            try Logbook.open(directory: "/data", options: options)
        }
        #expect(refusal?.code == .inUse)
        var random = SeededGenerator(seed: 1)
        fileSystem.crash(using: &random)  // the holder died with the power
        let second = try Logbook.open(directory: "/data", options: options)
        try first.close()  // a lease from before the crash releases nothing
        #expect(throws: LogbookError.self) {
            try Logbook.open(directory: "/data", options: options)
        }
        try second.close()
        try Logbook.open(directory: "/data", options: options).close()
    }
}
