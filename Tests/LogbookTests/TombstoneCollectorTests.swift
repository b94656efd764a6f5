import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// One node's tombstone GC: what it removes, when it refuses, what survives a reopen, and
// that a power cut at any point of it leaves a log that opens to the state before or after.
@Suite struct TombstoneCollectorTests {
    private func gc(
        _ logbook: Logbook, _ peers: PeerLedger, retention: Double = 0, at time: Double = 1_000,
        dryRun: Bool = false
    ) throws -> TombstoneCollectionReport {
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = retention
        options.now = Date(timeIntervalSince1970: time)
        options.dryRun = dryRun
        return try logbook.collectTombstones(peers: peers, options)
    }

    /// Writes `count` records, deletes every third, syncs.
    private func writeAndDelete(_ logbook: Logbook, count: Int = 30) async throws {
        for index in 0..<count {
            try await logbook.insertOrUpdate(
                "r\(index)", fields: [("name", .string("n\(index)")), ("v", .int(Int64(index)))])
        }
        for index in stride(from: 0, to: count, by: 3) {
            try await logbook.deleteRecord("r\(index)")
        }
        try logbook.sync()
    }

    /// A node 1 log in `directory` with six records, two of them deleted, all durable; and
    /// its durable end.
    private func sixRecordsTwoDeleted(in directory: TemporaryDirectory) async throws -> (
        Logbook, UInt64
    ) {
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        try await writeAndDelete(logbook, count: 6)
        return (logbook, logbook.durableOffset)
    }

    @Test func aStandaloneNodeCollectsAndTheLogReplaysWithoutTheTombstones() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        try await writeAndDelete(logbook)
        let peers = try PeerLedger(directory: directory.path)
        let clock = logbook.clock().currentTime()
        let bytesBefore = logbook.sizeBytes
        #expect(logbook.tombstoneCount() == 10)

        let dryRun = try gc(logbook, peers, dryRun: true)
        #expect(dryRun.collected == 10 && dryRun.recordsRemoved == 30)
        #expect(logbook.tombstoneCount() == 10, "a dry run changed the state")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/tombstone-gc.json"))

        let report = try gc(logbook, peers)
        #expect(report.blockedBecause == nil)
        #expect(report.collected == 10)
        #expect(report.recordsRemoved == 30)  // two columns and the deletion of each
        #expect(report.bytesAfter < bytesBefore)
        #expect(logbook.tombstoneCount() == 0)
        #expect(logbook.fencedRecordCount == 0, "no peers: nobody else can hold the tombstones")
        #expect(logbook.historyStart > 0)
        let digest = logbook.stateDigest()
        let again = try gc(logbook, peers)
        #expect(again.collected == 0 && again.recordsRemoved == 0, "GC is idempotent")
        #expect(logbook.stateDigest() == digest)
        try logbook.close()

        let reopened = try Logbook.open(directory: directory.path, options: smallLogOptions())
        #expect(reopened.stateDigest() == digest)
        #expect(reopened.clock().currentTime() >= clock, "the replayed clock went back")
        #expect(reopened.getRecord("r0") == nil && !reopened.isTombstoned("r0"))
        #expect(reopened.getRecord("r1") != nil)
        // The history below the collection is gone: a pull from there needs a snapshot.
        #expect(throws: LogbookError.self) {
            try reopened.storedBatches(from: 0, maxBytes: 1 << 20)
        }
        // Re-inserting a collected id starts it afresh.
        #expect(try await !reopened.insertOrUpdate("r0", fields: [("v", .int(7))]).isEmpty)
        try reopened.close()
    }

    @Test func unknownSilentOrUnpulledPeersBlockAndFencesWaitForEveryPeer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (logbook, end) = try await sixRecordsTwoDeleted(in: directory)
        let peers = try PeerLedger(directory: directory.path)

        // Node 7 acknowledged us without being registered: it is unknown, GC waits.
        try peers.acknowledge(.init(offset: end, peerLogEnd: 40, peerCollectedBelow: 0), byNode: 7)
        var report = try gc(logbook, peers)
        #expect(report.blockedBecause?.contains("node 7") == true)
        #expect(report.collected == 0 && logbook.tombstoneCount() == 2)

        // Registered but silent peer 2: still blocked.
        try peers.unregister(7)
        try peers.register(2)
        report = try gc(logbook, peers)
        #expect(report.blockedBecause?.contains("peer 2 has not acknowledged") == true)

        // Peer 2 acknowledged everything, but we have not pulled what it had logged by then.
        try peers.acknowledge(.init(offset: end, peerLogEnd: 40, peerCollectedBelow: 0), byNode: 2)
        report = try gc(logbook, peers)
        #expect(report.blockedBecause?.contains("pulled peer 2") == true)
        #expect(report.collected == 0)

        // Once we have pulled it past 40, the acknowledgement is settled and GC collects.
        try peers.setCursor(40, for: "http://peer-2", nodeId: 2)
        report = try gc(logbook, peers)
        #expect(report.blockedBecause == nil)
        #expect(report.collected == 2 && logbook.tombstoneCount() == 0)
        // Peer 2 may still hold the tombstones, so re-inserting is refused here...
        #expect(logbook.isFenced("r0"))
        #expect(try await logbook.insertOrUpdate("r0", fields: [("v", .int(1))]).isEmpty)
        #expect(try await logbook.deleteRecord("r0") == nil)
        // ...and a node that joins by snapshot learns the deletions.
        let snapshot = logbook.snapshotChanges()
        #expect(snapshot.contains { $0.recordId == "r0" && $0.colName == nil })

        // Peer 2 reports a GC frontier short of its log end: the fence stays.
        try peers.acknowledge(.init(offset: end, peerLogEnd: 40, peerCollectedBelow: 39), byNode: 2)
        report = try gc(logbook, peers)
        #expect(report.unfenced == 0 && logbook.isFenced("r0"))
        // Past it: peer 2 has collected them too, and the fence lifts.
        try peers.acknowledge(.init(offset: end, peerLogEnd: 40, peerCollectedBelow: 40), byNode: 2)
        report = try gc(logbook, peers)
        #expect(report.unfenced == 2 && !logbook.isFenced("r0"))
        #expect(try await !logbook.insertOrUpdate("r0", fields: [("v", .int(1))]).isEmpty)
        try logbook.close()
    }

    // A peer acknowledges only what it fetched, so an acknowledgement past this log's
    // durable end, or of a record in another epoch, is stale or made up. Stored, it would let
    // GC count records written since as received by the peer. The source refuses it; one
    // already in the ledger (from a longer copy of this log) blocks GC until the peer
    // acknowledges a position this log holds, which replaces it.
    @Test func anAcknowledgementOfAPositionThisLogDoesNotHoldNeverLetsGCCollect() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (logbook, end) = try await sixRecordsTwoDeleted(in: directory)
        let epoch = logbook.epochId(holding: end - 1)
        let peers = try PeerLedger(directory: directory.path)
        try peers.register(2)
        try peers.setCursor(40, for: "http://peer-2", nodeId: 2)
        let source = ReplicationSource(logbook: logbook, ledger: peers)

        for (offset, stated) in [(end + 1, epoch), (end, epoch &+ 1), (end + 1, nil)] {
            #expect(throws: ReplicationSource.Refusal.self) {
                try source.accept(
                    .init(node: 2, offset: offset, epoch: stated, logEnd: 40, collectedBelow: 0))
            }
            #expect(peers.acknowledgement(of: 2)?.acknowledged == nil, "offset \(offset)")
        }
        let refusal = #expect(throws: ReplicationSource.Refusal.self) {
            try source.accept(.init(node: 2, offset: end + 1, epoch: epoch, logEnd: 40))
        }
        #expect(refusal?.description.contains("past this log's durable end \(end)") == true)

        // A ledger from a longer copy of this log: the acknowledgement is past its end.
        try peers.acknowledge(
            .init(offset: end + 500, peerLogEnd: 40, peerCollectedBelow: 0), byNode: 2)
        var report = try gc(logbook, peers)
        #expect(
            report.blockedBecause?.contains("past this log's end \(logbook.nextOffset)") == true)
        #expect(report.collected == 0 && logbook.tombstoneCount() == 2)

        // The peer acknowledges what it holds: the stale values go, and GC collects.
        try source.accept(.init(node: 2, offset: end, epoch: epoch, logEnd: 40, collectedBelow: 0))
        #expect(peers.acknowledgement(of: 2)?.acknowledged == end)
        #expect(peers.acknowledgement(of: 2)?.settledAcknowledged == end)
        report = try gc(logbook, peers)
        #expect(report.blockedBecause == nil)
        #expect(report.collected == 2 && logbook.tombstoneCount() == 0)
        try logbook.close()
    }

    // GC logs and syncs a clock record outside the group committer; a write after it used to
    // wait for a committer sync that had nothing left to do, for ever. The limit catches that
    // hang; it is wall time including waits for a pool thread, which reached 80 s in a CI run.
    @Test(.timeLimit(.minutes(10))) func writesAfterAGCUnderGroupCommitReturn() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions(.groupCommit))
        try await writeAndDelete(logbook, count: 6)
        #expect(try gc(logbook, try PeerLedger(directory: directory.path)).collected == 2)
        #expect(try await logbook.merge([]).isEmpty)
        #expect(try await !logbook.insertOrUpdate("r1", fields: [("v", .int(9))]).isEmpty)
        try logbook.close()
    }

    // A run's sighting dates every record below the log end it names. Named past what a
    // power cut leaves, it would date records written later at those offsets back to the
    // run, and their tombstones would be collected before their retention time. So a run
    // names only durable offsets (it syncs first).
    @Test(arguments: [UInt64(31), 32, 33, 34, 35])
    func aSightingNeverOutlivesAPowerCut(seed: UInt64) async throws {
        let fileSystem = SimulatedFileSystem()
        try fileSystem.createDirectory("/node")
        try fileSystem.syncDirectory("/")
        var random = SeededGenerator(seed: seed)
        let options = smallLogOptions(fileSystem: fileSystem)
        var logbook = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        try logbook.sync()
        for index in 0..<200 {
            try await logbook.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(index)))])
        }
        let peers = try PeerLedger(for: logbook)
        // Nothing old enough yet: this run only notes its sighting.
        #expect(try gc(logbook, peers, retention: 100, at: 1_000).collected == 0)
        fileSystem.crash(using: &random)

        logbook = try Logbook.open(directory: "/node", nodeId: 1, options: options)
        let report = try gc(logbook, peers, retention: 100, at: 1_200, dryRun: true)
        #expect(
            report.retainedBelow <= logbook.nextOffset,
            "the sighting names \(report.retainedBelow), the log after the cut ends at \(logbook.nextOffset)"
        )
        try logbook.close()
    }

    @Test func tombstonesWaitForTheRetentionTime() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        try await writeAndDelete(logbook, count: 6)
        let peers = try PeerLedger(directory: directory.path)
        // The first run sees the tombstones and starts their clock.
        var report = try gc(logbook, peers, retention: 100, at: 1_000)
        #expect(report.collected == 0 && report.waitingForRetention == 2)
        report = try gc(logbook, peers, retention: 100, at: 1_099)
        #expect(report.collected == 0 && report.waitingForRetention == 2)
        // A deletion made later waits for its own time.
        try await logbook.deleteRecord("r1")
        try logbook.sync()
        report = try gc(logbook, peers, retention: 100, at: 1_100)
        #expect(report.collected == 2 && report.waitingForRetention == 1)
        #expect(logbook.isTombstoned("r1"))
        report = try gc(logbook, peers, retention: 100, at: 1_200)
        #expect(report.collected == 1 && !logbook.isTombstoned("r1"))
        try logbook.close()
    }

    /// The ids a replica holds tombstones for.
    private func tombstonedIds(_ logbook: Logbook) -> Set<String> {
        Set(logbook.getChangesSince(0).filter { $0.colName == nil }.map(\.recordId))
    }

    // A GC that collects several records rewrites several segments; a cut between two may
    // leave some of those records collected and others still tombstoned. Never more: the
    // live data is untouched, no collected record comes back, and running GC again ends
    // where the uninterrupted run did.
    @Test(arguments: [UInt64(21), 22, 23])
    func aPowerCutAnywhereInAGCLosesNothingAndBringsNothingBack(seed: UInt64) async throws {
        func options(_ fileSystem: SimulatedFileSystem) -> LogbookOptions {
            smallLogOptions(fileSystem: fileSystem)
        }
        // The ledger is not on the simulated file system; an empty one means no peers.
        let noPeers = TemporaryDirectory()
        defer { noPeers.remove() }
        let peers = try PeerLedger(directory: noPeers.path)
        let twin = SimulatedFileSystem()
        let reference = try Logbook.open(directory: "/data", nodeId: 1, options: options(twin))
        var workload = Workload(seed: seed, recordCount: 12)
        for _ in 0..<800 { _ = try await workload.step(reference) }
        try reference.sync()
        let liveBefore = reference.records()
        let tombstonesBefore = tombstonedIds(reference)
        let calls = twin.operationCount
        #expect(try gc(reference, peers).collected > 0)
        let callsInGC = twin.operationCount - calls
        let after = reference.stateDigest()
        try reference.close()

        var random = SeededGenerator(seed: seed)
        for cut in 0..<callsInGC {
            let fileSystem = SimulatedFileSystem()
            let logbook = try Logbook.open(
                directory: "/data", nodeId: 1, options: options(fileSystem))
            var replay = Workload(seed: seed, recordCount: 12)
            for _ in 0..<800 { _ = try await replay.step(logbook) }
            try logbook.sync()
            fileSystem.failOperations(after: cut)
            _ = try? gc(logbook, peers)
            fileSystem.crash(using: &random)
            let reopened = try Logbook.open(directory: "/data", options: options(fileSystem))
            #expect(reopened.records() == liveBefore, "seed=\(seed) cut=\(cut) of \(callsInGC)")
            #expect(
                tombstonedIds(reopened).isSubset(of: tombstonesBefore), "seed=\(seed) cut=\(cut)")
            // Finishing the interrupted GC reaches the same state as the uninterrupted one.
            _ = try gc(reopened, peers)
            #expect(reopened.stateDigest() == after, "seed=\(seed) cut=\(cut): GC did not finish")
            try reopened.close()
        }
    }

    // A GC state that names offsets past the log (written by a build that did not sync
    // first, then a power cut took the log's tail) is lowered to the log's end at open: a
    // sighting past the end must not date later records back to it.
    @Test func aStateNamingOffsetsPastTheLogIsLoweredAtOpen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        for index in 0..<10 {
            try await logbook.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(index)))])
        }
        try logbook.close()
        let statePath = directory.path + "/tombstone-gc.json"
        let written = Data(
            """
            {"collectedBelow":500,"historyStart":400,"sightings":[{"time":1000,"logEnd":900},\
            {"time":1050,"logEnd":3}],"rounds":[{"collectedBelow":700,"time":1000,\
            "peerLogEnds":{},"records":[]}]}
            """.utf8)
        try written.write(to: URL(fileURLWithPath: statePath))

        var readOnly = smallLogOptions()
        readOnly.readOnly = true
        let reader = try Logbook.open(directory: directory.path, nodeId: 1, options: readOnly)
        let end = reader.nextOffset
        #expect(reader.tombstoneGCOffsetsLowered.count == 4, "\(reader.tombstoneGCOffsetsLowered)")
        #expect(reader.collectedBelow == end && reader.historyStart == end)
        try reader.close()

        logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: smallLogOptions())
        #expect(
            logbook.tombstoneGCOffsetsLowered == [
                "collectedBelow 500 lies past the log's end \(end); lowered to it",
                "historyStart 400 lies past the log's end \(end); lowered to it",
                "the sighting at 1000.0 s 900 lies past the log's end \(end); lowered to it",
                "the fence round at 1000.0 s 700 lies past the log's end \(end); lowered to it",
            ])
        // Opening changed no byte; the next GC run saves the lowered state.
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == written)
        // A deletion logged now, at an offset the old sighting named, waits for its own time.
        try await logbook.deleteRecord("r1")
        try logbook.sync()
        let peers = try PeerLedger(directory: directory.path)
        let report = try gc(logbook, peers, retention: 100, at: 1_200)
        #expect(report.collected == 0 && report.waitingForRetention == 1)
        #expect(report.retainedBelow == end)
        try logbook.close()
    }
}
