import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Synchronization
import Testing

@testable import Logbook

// Issue 60, class 6: about 4 MB of highly compressible batches on the wire decoded to
// 1.1 GB on a follower. A session now decodes no answer announcing more than its bounds
// (records, decompressed bytes) unless it is a single batch: it asks again with a smaller
// body, keeps the smaller size, and grows back once answers fit.
@Suite struct FetchSizingTests {
    /// A peer's batches as asked, each answer's announced records noted.
    final class RecordingTransport: ReplicationTransport {
        let source: ReplicationSource
        let answers = Mutex<[(asked: Int, records: Int, batches: Int)]>([])
        var peerName: String { "test://peer" }

        init(_ source: ReplicationSource) { self.source = source }

        func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
            async throws -> BatchAnswer
        {
            let answer = try source.batches(from: offset, epoch: epoch, maxBytes: maxBytes)
            if case .batches(let batches) = answer, !batches.bytes.isEmpty {
                let announced = try ShippedBatchReader.announced(in: batches.bytes)
                answers.withLock { $0.append((maxBytes, announced.records, announced.batches)) }
            }
            return answer
        }

        func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage {
            source.statePage(after: after, changesMax: changesMax)
        }

        func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws {
            try source.accept(acknowledgement)
        }
    }

    @Test func aFollowerNeverDecodesAnAnswerOverItsBoundsAndStillConverges() async throws {
        let fileSystem = SimulatedFileSystem()
        let options = smallLogOptions(.buffered, fileSystem: fileSystem, batchSizeTarget: 4096)
        let peer = try Logbook.open(directory: "/peer", nodeId: 1, options: options)
        defer { try? peer.close() }
        // One value over and over: batches that compress many times over.
        let value = Value.string(String(repeating: "a", count: 300))
        for start in stride(from: 0, to: 6_000, by: 100) {
            try await peer.write(
                (start..<(start + 100)).map { .insertOrUpdate("e/\($0)", fields: [("v", value)]) })
        }
        try peer.sync()
        let peerLedger = try PeerLedger(for: peer)
        try peerLedger.register(2)
        let transport = RecordingTransport(ReplicationSource(logbook: peer, ledger: peerLedger))
        let node = try Logbook.open(directory: "/node", nodeId: 2, options: options)
        defer { try? node.close() }
        var settings = ReplicationSession.Options()
        settings.bootstrapsFromState = false
        settings.recordsPerFetchMax = 500
        let session = ReplicationSession(
            logbook: node, ledger: try PeerLedger(for: node), transport: transport,
            options: settings)
        var stored: [UInt64] = []
        let report = try await session.catchUp { stored.append($0.cursor) }
        #expect(report.cursor == peer.durableOffset)
        #expect(node.stateDigest() == peer.stateDigest())
        // Each stored step moved the cursor by at most the bound (a record is an offset).
        let steps = zip([0] + stored, stored).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 <= 500 }, "\(steps)")
        let answers = transport.answers.withLock { $0 }
        #expect(answers.contains { $0.records > 500 }, "the bound was never reached")
        #expect(answers.first?.asked == settings.bytesPerFetch)
        #expect(
            answers.contains { $0.asked < settings.bytesPerFetch / 2 },
            "the smaller size was kept")
    }

    @Test func aSingleBatchIsDecodedWhateverItAnnounces() {
        let sizing = FetchSizing(bytesMax: 4 << 20)
        #expect(
            sizing.resize(
                asked: 4 << 20, bodyBytes: 1_000, records: 1 << 20, rawBytes: 1 << 24,
                batches: 1, recordsMax: 10, rawBytesMax: 10) == nil)
    }

    @Test func theSizeShrinksOverTheBoundsAndDoublesBackAfterAnswersThatFit() throws {
        let sizing = FetchSizing(bytesMax: 4 << 20)
        let smaller = try #require(
            sizing.resize(
                asked: 4 << 20, bodyBytes: 4 << 20, records: 4_000_000, rawBytes: 1 << 30,
                batches: 64, recordsMax: 1 << 20, rawBytesMax: 64 << 20))
        // 16 times over the raw bound: half of a sixteenth of the body.
        #expect(smaller == (4 << 20) / 16 / 2)
        #expect(sizing.current == smaller)
        _ = sizing.resize(
            asked: smaller, bodyBytes: smaller, records: 10, rawBytes: 10, batches: 2,
            recordsMax: 1 << 20, rawBytesMax: 64 << 20)
        #expect(sizing.current == smaller * 2)
    }
}
