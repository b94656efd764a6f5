import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Power cuts while a snapshot is written: at every file-system call of `writeSnapshot()`
// the power goes (unsynced data and directory changes lost or torn). The Logbook must open,
// hold exactly what was acknowledged, and use the new snapshot, the old one, or none.
@Suite struct SnapshotPowerCutTests {
    @Test(arguments: 0..<14)
    func aCutWhileASnapshotIsWrittenLeavesTheStateWhole(cut: Int) async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem)
        let logbook = try Logbook.open(directory: "/data", nodeId: 3, options: options)
        var workload = Workload(seed: UInt64(cut) + 1)
        for _ in 0..<150 { _ = try await workload.step(logbook) }
        let old = try logbook.writeSnapshot()
        for _ in 0..<80 { _ = try await workload.step(logbook) }
        let expected = logbook.getChangesSince(0)
        let expectedClock = logbook.clock().currentTime()

        fileSystem.failOperations(after: cut)
        let attempt = Result { () throws(LogbookError) in try logbook.writeSnapshot() }
        var random = SeededGenerator(seed: UInt64(cut) &* 31 + 5)
        fileSystem.crash(using: &random)

        let reopened = try Logbook.open(directory: "/data", options: options)
        defer { try? reopened.close() }
        #expect(reopened.getChangesSince(0) == expected, "cut \(cut)")
        #expect(reopened.clock().currentTime() == expectedClock, "cut \(cut)")
        let loaded = reopened.snapshotLoad
        #expect(loaded.setAside.isEmpty, "cut \(cut): \(loaded.setAside)")
        if case .success(let new) = attempt, loaded.file != old.file {
            #expect(loaded.file == new.file, "cut \(cut)")
        }
        #expect(loaded.file != nil && loaded.offset >= old.offset, "cut \(cut): the old one stays")
    }
}
