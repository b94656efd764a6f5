import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Every file of a Logbook directory proves it belongs to the log it sits in: `logbook.json`
// names the node and the log's identity, the manifest the same identity, a snapshot the
// identity and the history it was taken in. Before, a snapshot from before a tombstone GC
// copied back brought collected records back, a lost `logbook.json` let any node id adopt
// the log, node 0 opened, and a lost `peers.json` made GC standalone.
@Suite struct FileBindingTests {
    private func gc(_ logbook: Logbook, _ peers: PeerLedger) throws -> TombstoneCollectionReport {
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0
        options.now = Date(timeIntervalSince1970: 1_000)
        return try logbook.collectTombstones(peers: peers, options)
    }

    private func files(_ directory: TemporaryDirectory, suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(suffix) }.sorted()
    }

    @Test func aSnapshotFromBeforeATombstoneGCIsSetAsideNotLoaded() async throws {
        let directory = TemporaryDirectory()
        let parked = TemporaryDirectory("parked")
        defer {
            directory.remove()
            parked.remove()
        }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await logbook.insertOrUpdate("kept", fields: [("v", 1)])
        try await logbook.insertOrUpdate("collected", fields: [("v", 2)])
        _ = try logbook.writeSnapshot()
        let snapshot = try #require(try files(directory, suffix: ".replica").first)
        try FileManager.default.copyItem(
            atPath: directory.appending(snapshot), toPath: parked.appending(snapshot))
        try await logbook.deleteRecord("collected")
        try logbook.sync()
        let report = try gc(logbook, try PeerLedger(for: logbook))
        #expect(report.collected == 1)
        let digest = logbook.stateDigest()
        try logbook.close()

        // The operator copies the old snapshot back (a backup restore of one file).
        for name in try files(directory, suffix: ".replica") {
            try FileManager.default.removeItem(atPath: directory.appending(name))
        }
        try FileManager.default.copyItem(
            atPath: parked.appending(snapshot), toPath: directory.appending(snapshot))
        let reopened = try Logbook.open(directory: directory.path)
        #expect(reopened.snapshotLoad.file == nil)
        let reason = try #require(reopened.snapshotLoad.setAside.first)
        #expect(reason.contains(snapshot) && reason.contains("tombstone GC"), "\(reason)")
        #expect(reopened.getRecord("collected") == nil)
        #expect(reopened.stateDigest() == digest)
        #expect(
            FileManager.default.fileExists(atPath: directory.appending(snapshot + ".set-aside")))
        try reopened.close()
    }

    @Test func aSnapshotOfAnotherLogIsSetAside() async throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        // The same node and the same writes on two directories: two logs, one state.
        for path in [directory.path, other.path] {
            let logbook = try Logbook.open(directory: path, nodeId: 1)
            try await logbook.insertOrUpdate("lamp", fields: [("on", true)])
            try logbook.close()
        }
        let otherLogbook = try Logbook.open(directory: other.path)
        try await otherLogbook.insertOrUpdate("lamp", fields: [("on", false)])
        _ = try otherLogbook.writeSnapshot()
        try otherLogbook.close()
        let logbook = try Logbook.open(directory: directory.path)
        try await logbook.insertOrUpdate("door", fields: [("open", true)])
        try await logbook.insertOrUpdate("door", fields: [("open", false)])
        let offset = logbook.nextOffset
        try logbook.close()
        // A snapshot within this log's offsets, copied from the other directory.
        let name = try #require(try files(other, suffix: ".replica").last)
        try #require(try #require(ReplicaSnapshotFileName.offset(name)) <= offset)
        try FileManager.default.copyItem(
            atPath: other.appending(name), toPath: directory.appending(name))

        let reopened = try Logbook.open(directory: directory.path)
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file == nil)
        #expect(reopened.snapshotLoad.setAside.contains { $0.contains("taken of log") })
        #expect(reopened.getRecord("lamp")?.field("on") == .bool(true))
    }

    /// A log of one write, closed, and a copy of its directory beside it, for the two to be
    /// written on apart.
    private struct CopiedLog {
        let directory = TemporaryDirectory()
        let copyParent = TemporaryDirectory("copy")
        var copy: String { copyParent.appending("node") }

        init() async throws {
            let original = try Logbook.open(directory: directory.path, nodeId: 1)
            try await original.insertOrUpdate("lamp", fields: [("on", true)])
            try original.close()
            try FileManager.default.copyItem(atPath: directory.path, toPath: copy)
        }

        /// Puts the copy's files `names` in place of the log's own.
        func takeFromCopy(_ names: [String]) throws {
            for name in names {
                try? FileManager.default.removeItem(atPath: directory.appending(name))
                try FileManager.default.copyItem(
                    atPath: copy + "/" + name, toPath: directory.appending(name))
            }
        }

        func remove() {
            directory.remove()
            copyParent.remove()
        }
    }

    /// A copy of the directory written on apart (a backup restored beside the original,
    /// say) shares the log's identity and history; its snapshot and its `epochs` file,
    /// copied in together, agree with each other. Before the snapshot mark, they were
    /// loaded and `get` read the copy's values; now the record before the snapshot's
    /// offset is not its mark, and the log is replayed.
    @Test func aSnapshotAndEpochsFromADivergedCopyAreSetAside() async throws {
        let log = try await CopiedLog()
        defer { log.remove() }
        let (directory, copy) = (log.directory, log.copy)

        let diverged = try Logbook.open(directory: copy)
        try await diverged.insertOrUpdate("door", fields: [("open", false)])
        try await diverged.insertOrUpdate("window", fields: [("open", true)])
        let snapshot = try diverged.writeSnapshot()
        try diverged.close()
        let logbook = try Logbook.open(directory: directory.path)
        for number in 0..<5 {
            try await logbook.insertOrUpdate("door", fields: [("open", .int(Int64(number)))])
        }
        #expect(logbook.nextOffset >= snapshot.offset)
        try logbook.close()
        let own = try Logbook.open(directory: directory.path, options: replayOnly)
        let digest = own.stateDigest()
        try own.close()

        try log.takeFromCopy([snapshot.file, "epochs"])
        let reopened = try Logbook.open(directory: directory.path)
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file == nil)
        // The copy's epoch has no mark here, so the snapshot's epoch is not held; were it,
        // the snapshot mark at offset − 1 would not be the snapshot's.
        let reason = try #require(reopened.snapshotLoad.setAside.first)
        #expect(
            reason.contains("was not written in epoch") || reason.contains("diverged"),
            "\(reason)")
        #expect(reopened.getRecord("window") == nil)
        #expect(reopened.getRecord("door")?.field("open") == .int(4))
        #expect(reopened.stateDigest() == digest)
    }

    /// The `epochs` file alone, copied from a copy of the directory written on apart: the
    /// copy's epoch began where this log's own began, so by the file alone a follower of
    /// the copy held a position this log holds too, and was served on from there. Each
    /// epoch's first record is its mark: the copy's epoch has none here.
    @Test func anEpochsFileFromADivergedCopyHoldsNoPositionInIt() async throws {
        let log = try await CopiedLog()
        defer { log.remove() }
        let (directory, copy) = (log.directory, log.copy)
        let diverged = try Logbook.open(directory: copy)
        for number in 0..<3 {
            try await diverged.insertOrUpdate("door", fields: [("open", .int(Int64(number)))])
        }
        let copyEnd = diverged.nextOffset
        let copyEpoch = diverged.epochId(before: copyEnd)
        try diverged.close()
        let logbook = try Logbook.open(directory: directory.path)
        for number in 0..<3 {
            try await logbook.insertOrUpdate("window", fields: [("open", .int(Int64(number)))])
        }
        let ownEpoch = logbook.epochId(before: copyEnd)
        try logbook.close()
        #expect(ownEpoch != copyEpoch && logbook.nextOffset >= copyEnd)

        try log.takeFromCopy(["epochs"])
        let reopened = try Logbook.open(directory: directory.path)
        defer { try? reopened.close() }
        #expect(reopened.epochId(before: copyEnd) == copyEpoch, "the file is the copy's")
        let error = #expect(throws: LogbookError.self) {
            try reopened.checkPosition(copyEnd, epochId: copyEpoch)
        }
        #expect(error?.code == .diverged, "\(String(describing: error))")
    }

    /// The mark survives compaction, which drops superseded records: a snapshot still loads.
    @Test func aSnapshotStillLoadsAfterCompaction() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        for number in 0..<300 {
            try await logbook.insertOrUpdate("r\(number % 7)", fields: [("v", .int(Int64(number)))])
        }
        let snapshot = try logbook.writeSnapshot()
        for number in 0..<300 {
            try await logbook.insertOrUpdate("r\(number % 7)", fields: [("w", .int(Int64(number)))])
        }
        var everySegment = CompactionOptions()
        everySegment.dirtyRatioMin = 0
        let compaction = try logbook.compact(everySegment)
        #expect(compaction.recordsAfter < compaction.recordsBefore)
        let digest = logbook.stateDigest()
        try logbook.close()
        var options = smallLogOptions()
        options.snapshots.onCloseAfterBytes = nil
        let reopened = try Logbook.open(directory: directory.path, options: options)
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file != nil, "\(reopened.snapshotLoad.setAside)")
        #expect(reopened.snapshotLoad.offset >= snapshot.offset)
        #expect(reopened.stateDigest() == digest)
    }

    private enum ReplicaSnapshotFileName {
        static func offset(_ name: String) -> UInt64? {
            UInt64(name.dropFirst("snapshot-".count).prefix(20))
        }
    }

    private var replayOnly: LogbookOptions {
        var options = LogbookOptions()
        options.snapshots.loadAtOpen = false
        return options
    }

    @Test func nodeZeroIsRefusedWhereverItComesFrom() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path, nodeId: 0)
        }
        try Logbook.open(directory: directory.path, nodeId: 1).close()
        let path = directory.appending(Logbook.metadataFileName)
        let edited = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "\"nodeId\":1", with: "\"nodeId\":0")
        try #require(edited.contains("\"nodeId\":0"))
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            try Logbook.open(directory: directory.path).close()
            Issue.record("node 0 opened")
        } catch {
            #expect(error.code == .badMetadata && error.message.contains("node 0"), "\(error)")
        }
    }

    @Test(arguments: [1 as NodeId, 2])
    func aLogWhoseMetadataWasLostIsNotAdopted(by node: NodeId) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await logbook.insertOrUpdate("lamp", fields: [("on", true)])
        try logbook.close()
        try FileManager.default.removeItem(atPath: directory.appending(Logbook.metadataFileName))
        do {
            try Logbook.open(directory: directory.path, nodeId: node).close()
            Issue.record("node \(node) adopted the log")
        } catch {
            #expect(error.code == .badMetadata, "\(error)")
            #expect(error.message.contains("holds a log"), "\(error.message)")
        }
        #expect(!Logbook.isLogbookDirectory(directory.path), "the refusal wrote metadata")
    }

    @Test func metadataOfAnotherLogIsRefused() throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory("other")
        defer {
            directory.remove()
            other.remove()
        }
        try Logbook.open(directory: directory.path, nodeId: 1).close()
        try Logbook.open(directory: other.path, nodeId: 1).close()
        let name = Logbook.metadataFileName
        let ours = try String(contentsOfFile: directory.appending(name), encoding: .utf8)
        #expect(ours.contains("\"logId\":\""), "\(ours)")
        try FileManager.default.removeItem(atPath: directory.appending(name))
        try FileManager.default.copyItem(
            atPath: other.appending(name), toPath: directory.appending(name))
        do {
            try Logbook.open(directory: directory.path).close()
            Issue.record("another log's metadata was taken")
        } catch {
            #expect(error.code == .storage || error.code == .corruption, "\(error)")
            #expect(error.message.contains("belongs to log"), "\(error.message)")
        }
    }

    @Test(arguments: ["deleted", "{}"])
    func aLostPeerLedgerStopsGCInsteadOfMakingItStandalone(loss: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        defer { try? logbook.close() }
        try await logbook.insertOrUpdate("lamp", fields: [("on", true)])
        try await logbook.deleteRecord("lamp")
        try logbook.sync()
        try PeerLedger(for: logbook).register(2)
        let blocked = try gc(logbook, try PeerLedger(for: logbook))
        #expect(blocked.collected == 0, "node 2 acknowledged nothing")

        let ledger = directory.appending("peers.json")
        if loss == "deleted" {
            try FileManager.default.removeItem(atPath: ledger)
        } else {
            try loss.write(toFile: ledger, atomically: true, encoding: .utf8)
        }
        do {
            _ = try gc(logbook, try PeerLedger(for: logbook))
            Issue.record("GC ran standalone on a lost ledger")
        } catch let error as LogbookError {
            #expect(error.code == .badMetadata && error.message.contains("peers.json"), "\(error)")
        }
        #expect(logbook.isTombstoned("lamp"))
        // Registering the peer again makes GC wait for it once more.
        try PeerLedger(for: logbook).register(2)
        #expect(try gc(logbook, try PeerLedger(for: logbook)).collected == 0)
    }

    /// Another node's `peers.json`, whose peer acknowledged far past this log's end, is not
    /// read as this log's: GC would take node 2 for having seen this node's deletion. Node 2
    /// is registered on both, so GC fails closed until the peer is registered again, and
    /// the foreign file is moved aside by name at the first write.
    @Test func anotherLogsPeerLedgerIsIgnoredAndSetAside() async throws {
        let (here, there) = (TemporaryDirectory(), TemporaryDirectory("there"))
        defer {
            here.remove()
            there.remove()
        }
        let other = try Logbook.open(directory: there.path, nodeId: 1)
        for index in 0..<50 { try await other.insertOrUpdate("r\(index)", fields: [("v", 1)]) }
        try other.sync()
        let otherPeers = try PeerLedger(for: other)
        try otherPeers.register(2)
        try otherPeers.acknowledge(
            PeerLedger.Acknowledgement(offset: other.durableOffset, peerLogEnd: 1 << 20),
            byNode: 2)
        try other.close()

        let logbook = try Logbook.open(directory: here.path, nodeId: 1)
        defer { try? logbook.close() }
        try await logbook.insertOrUpdate("lamp", fields: [("on", true)])
        try await logbook.deleteRecord("lamp")
        try logbook.sync()
        try PeerLedger(for: logbook).register(2)
        #expect(try gc(logbook, try PeerLedger(for: logbook)).collected == 0)

        let ledger = here.appending("peers.json")
        try FileManager.default.removeItem(atPath: ledger)
        try FileManager.default.copyItem(atPath: there.appending("peers.json"), toPath: ledger)
        let copied = try PeerLedger(for: logbook)
        #expect(copied.ignoredFile?.contains("belongs to log") == true)
        #expect(copied.acknowledgement(of: 2) == nil, "the other log's acknowledgement was read")
        do {
            _ = try gc(logbook, copied)
            Issue.record("GC ran on another log's ledger")
        } catch let error as LogbookError {
            #expect(error.code == .badMetadata && error.message.contains("peers.json"), "\(error)")
        }
        #expect(logbook.isTombstoned("lamp"))

        try copied.register(2)
        #expect(FileManager.default.fileExists(atPath: ledger + ".set-aside"))
        let rebound = try PeerLedger(for: logbook)
        #expect(rebound.ignoredFile == nil && rebound.registeredPeers == [2])
        #expect(try gc(logbook, rebound).collected == 0, "node 2 acknowledged nothing here")
    }

    /// A ledger from before the binding (entries at the top level) is this log's: read as
    /// it is, and bound at its next write.
    @Test func aLedgerFromBeforeTheBindingIsReadAndBoundAtItsNextWrite() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        defer { try? logbook.close() }
        let legacy = #"{"node-2":{"registered":true,"nodeId":2,"updated":1}}"#
        try legacy.write(
            toFile: directory.appending("peers.json"), atomically: true, encoding: .utf8)
        let ledger = try PeerLedger(for: logbook)
        #expect(ledger.ignoredFile == nil && ledger.registeredPeers == [2])
        try ledger.register(3)
        let written = try String(contentsOfFile: directory.appending("peers.json"), encoding: .utf8)
        #expect(written.contains("\"log\""), "\(written)")
        #expect(try PeerLedger(for: logbook).registeredPeers == [2, 3])
    }
}
