import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Replica snapshots: an open that loads one and replays the tail must hold exactly what an
// open replaying the whole log holds (data, every version, tombstones, clock); a snapshot
// that does not prove itself is set aside and the whole log replayed.
@Suite struct ReplicaSnapshotTests {
    /// Small segments and batches; a snapshot on every close that leaves anything uncovered
    /// (or, `closeSnapshot` false, none: a close then leaves the log as a crash would).
    static func options(closeSnapshot: Bool = true) -> LogbookOptions {
        var options = smallLogOptions()
        options.snapshots.onCloseAfterBytes = closeSnapshot ? 0 : nil
        return options
    }

    /// Runs `steps` seeded workload steps against the Logbook.
    private func write(_ logbook: Logbook, seed: UInt64, steps: Int) async throws {
        var workload = Workload(seed: seed, recordCount: 60)
        for _ in 0..<steps { _ = try await workload.step(logbook) }
    }

    /// Everything a replica holds, local versions and clock included, in a comparable form.
    private func fullState(_ logbook: Logbook) -> [String] {
        logbook.getChangesSince(0).map { "\($0)" } + ["clock \(logbook.clock().currentTime())"]
    }

    /// The state of the directory as a whole-log replay gives it (snapshots ignored).
    private func replayedState(_ directory: String, options: LogbookOptions = smallLogOptions())
        throws -> [String]
    {
        var options = options
        options.snapshots = .off
        options.readOnly = true
        let logbook = try Logbook.open(directory: directory, options: options)
        defer { try? logbook.close() }
        return fullState(logbook)
    }

    private func snapshotNames(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("snapshot-") }.sorted()
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func anOpenFromASnapshotHoldsWhatAWholeReplayHolds(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try Logbook.open(
            directory: directory.path, nodeId: 5, options: Self.options(closeSnapshot: false))
        try await write(first, seed: seed, steps: 400)
        let snapshot = try first.writeSnapshot()
        #expect(snapshot.written && snapshot.offset == first.nextOffset && snapshot.entries > 0)
        try await write(first, seed: seed + 100, steps: 300)  // the tail after the snapshot
        let expected = fullState(first)
        try first.close()  // no snapshot on this close: the tail must be replayed
        #expect(try replayedState(directory.path) == expected)

        let reopened = try Logbook.open(directory: directory.path, options: Self.options())
        #expect(reopened.snapshotLoad.file == snapshot.file)
        #expect(reopened.snapshotLoad.offset == snapshot.offset)
        #expect(reopened.snapshotLoad.setAside.isEmpty)
        #expect(reopened.replayStatistics.changes > 0, "the tail is replayed")
        #expect(fullState(reopened) == expected)
        // Writing on from the loaded state gives what writing on from a replay gives.
        try await write(reopened, seed: seed + 200, steps: 100)
        let afterMore = fullState(reopened)
        try reopened.close()  // snapshots on close
        #expect(try replayedState(directory.path) == afterMore)
        let third = try Logbook.open(directory: directory.path, options: Self.options())
        defer { try? third.close() }
        #expect(third.snapshotLoad.offset == third.nextOffset, "the close snapshot covers all")
        #expect(third.replayStatistics.changes == 0)
        #expect(fullState(third) == afterMore)
    }

    @Test func aDamagedSnapshotIsSetAsideAndTheOlderOneUsed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 5, options: Self.options(closeSnapshot: false))
        try await write(logbook, seed: 7, steps: 200)
        let older = try logbook.writeSnapshot()
        try await write(logbook, seed: 8, steps: 200)
        let newer = try logbook.writeSnapshot()
        try await write(logbook, seed: 9, steps: 50)
        let expected = fullState(logbook)
        try logbook.close()
        #expect(try snapshotNames(directory.path) == [older.file, newer.file])

        // One flipped byte in the newest's body: its batch checksum fails.
        let path = directory.appending(newer.file)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 5] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        // A read-only open sets it aside in memory only: no byte changes.
        var readOnly = Self.options()
        readOnly.readOnly = true
        let looked = try Logbook.open(directory: directory.path, options: readOnly)
        #expect(looked.snapshotLoad.file == older.file)
        #expect(fullState(looked) == expected)
        try looked.close()
        #expect(try snapshotNames(directory.path) == [older.file, newer.file])

        let reopened = try Logbook.open(directory: directory.path, options: Self.options())
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file == older.file)
        let reason = try #require(reopened.snapshotLoad.setAside.first)
        #expect(reason.hasPrefix(newer.file) && reason.contains("checksum"), "\(reason)")
        #expect(fullState(reopened) == expected)
        #expect(
            try snapshotNames(directory.path)
                == [older.file, newer.file + ".set-aside"])
    }

    /// A snapshot file far longer than its header says is set aside from its header and
    /// size alone: its body is not read into memory (a sparse file of terabytes would not fit).
    @Test func aSnapshotLongerThanItsHeaderSaysIsSetAsideUnread() async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(.fsyncEachAppend, fileSystem: fileSystem)
        let logbook = try Logbook.open(directory: "/data", nodeId: 5, options: options)
        try await write(logbook, seed: 21, steps: 100)
        let snapshot = try logbook.writeSnapshot()
        let expected = fullState(logbook)
        try logbook.close()
        let grown = 8 << 20
        let file = try fileSystem.open("/data/" + snapshot.file, mode: .readWrite)
        try file.truncate(to: Int64(grown))
        try file.close()

        let readBefore = fileSystem.bytesRead
        let reopened = try Logbook.open(directory: "/data", options: options)
        defer { try? reopened.close() }
        let reason = try #require(reopened.snapshotLoad.setAside.first)
        #expect(reason.hasPrefix(snapshot.file) && reason.contains("header says"), "\(reason)")
        #expect(fullState(reopened) == expected)
        #expect(fileSystem.bytesRead - readBefore < grown / 2, "the grown file was read")
    }

    @Test func aSnapshotOfAnotherLogIsNotTrusted() async throws {
        let directory = TemporaryDirectory()
        let backup = TemporaryDirectory()
        defer {
            directory.remove()
            backup.remove()
        }
        let manager = FileManager.default
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 5, options: Self.options())
        try await write(logbook, seed: 11, steps: 150)
        try logbook.close()  // snapshot A
        let kept = try #require(try snapshotNames(directory.path).first)
        try? manager.removeItem(atPath: backup.path)
        try manager.copyItem(atPath: directory.path, toPath: backup.path)
        let onward = try Logbook.open(directory: directory.path, options: Self.options())
        try await write(onward, seed: 12, steps: 150)
        let newer = try onward.writeSnapshot()  // snapshot B
        let newerBytes = try Data(contentsOf: URL(fileURLWithPath: directory.appending(newer.file)))
        try onward.close()

        // The log comes back from the older copy, B is put back beside it, and the log is
        // written on past B's offset with other changes (in a new epoch), snapshots off.
        try manager.removeItem(atPath: directory.path)
        try manager.copyItem(atPath: backup.path, toPath: directory.path)
        try newerBytes.write(to: URL(fileURLWithPath: directory.appending(newer.file)))
        var off = Self.options()
        off.snapshots = .off
        let restored = try Logbook.open(directory: directory.path, options: off)
        try await write(restored, seed: 13, steps: 400)
        #expect(restored.nextOffset > newer.offset)
        let expected = fullState(restored)
        try restored.close()

        let reopened = try Logbook.open(directory: directory.path, options: Self.options())
        defer { try? reopened.close() }
        let reason = try #require(reopened.snapshotLoad.setAside.first)
        #expect(reason.hasPrefix(newer.file) && reason.contains("epoch"), "\(reason)")
        #expect(reopened.snapshotLoad.file == kept, "A still fits: the log below it is the same")
        #expect(fullState(reopened) == expected)
    }

    @Test func tombstoneGCRemovesSnapshotsAndTheNextOneHoldsWhatItLeft() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let options = Self.options()
        let logbook = try Logbook.open(directory: directory.path, nodeId: 5, options: options)
        for index in 0..<40 {
            try await logbook.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(index)))])
        }
        for index in 0..<20 { _ = try await logbook.deleteRecord("r\(index)") }
        try logbook.writeSnapshot()
        #expect(try snapshotNames(directory.path).count == 1)
        try logbook.sync()
        var gc = TombstoneCollectionOptions()
        gc.retentionSeconds = 0
        gc.now = Date(timeIntervalSince1970: 1_000)
        let report = try logbook.collectTombstones(
            peers: try PeerLedger(directory: directory.path), gc)
        #expect(report.recordsRemoved > 0)
        #expect(try snapshotNames(directory.path).isEmpty, "a snapshot holding them is gone")
        let expected = fullState(logbook)
        try logbook.close()
        #expect(try snapshotNames(directory.path).count == 1, "close wrote a new one")
        let reopened = try Logbook.open(directory: directory.path, options: options)
        #expect(reopened.snapshotLoad.file != nil)
        #expect(fullState(reopened) == expected)
        try reopened.close()
        #expect(try replayedState(directory.path, options: options) == expected)
    }

    @Test func compactionKeepsASnapshotValid() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 5, options: Self.options(closeSnapshot: false))
        try await write(logbook, seed: 21, steps: 500)
        let snapshot = try logbook.writeSnapshot()
        try await write(logbook, seed: 22, steps: 300)
        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        #expect(try logbook.compact(compaction).didRewrite)
        let expected = fullState(logbook)
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options())
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file == snapshot.file)
        #expect(fullState(reopened) == expected)
    }

    @Test func snapshotsAreWrittenInTheBackgroundAsTheLogGrows() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = Self.options()
        options.snapshots.everyLogBytes = 8 * 1024
        options.snapshots.kept = 1
        let logbook = try Logbook.open(directory: directory.path, nodeId: 5, options: options)
        try await write(logbook, seed: 31, steps: 1500)
        // Written by the background thread, not by close: wait for one before closing.
        let deadline = ContinuousClock.now + .seconds(30)
        while try snapshotNames(directory.path).isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try !snapshotNames(directory.path).isEmpty, "no background snapshot")
        // Another one may still be being written; close waits for it.
        try logbook.close()
        #expect(logbook.lastSnapshotFailure == nil)
        #expect(try snapshotNames(directory.path).count == 1, "kept = 1")
        let reopened = try Logbook.open(directory: directory.path, options: options)
        #expect(reopened.snapshotLoad.offset == reopened.nextOffset)
        let loaded = fullState(reopened)
        try reopened.close()
        #expect(loaded == (try replayedState(directory.path)))
    }

    @Test func aSnapshotIsNotRewrittenWhenNothingWasLogged() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 5, options: Self.options())
        try await write(logbook, seed: 41, steps: 50)
        let first = try logbook.writeSnapshot()
        let second = try logbook.writeSnapshot()
        #expect(first.written && !second.written)
        #expect(second.file == first.file && second.entries == first.entries)
        #expect(second.bytes == first.bytes && second.digest == first.digest)
        #expect(first.digest == logbook.stateDigest().description)
        try logbook.close()
    }
}
