import Foundation
import LogbookCRDT
import LogbookStorage
import Testing

@testable import Logbook

// A golden replica snapshot pins the snapshot format (docs/format/replica-snapshot.md):
// Fixtures/snapshot-v3/replica.snapshot.hex is the file written for the state below, 64 hex
// digits a line. Encoding the state must give those bytes; decoding them must give the
// state; every truncation and every flipped byte must be refused, never trusted. The files
// formats 1 and 2 wrote for the same state (Fixtures/snapshot-v1, -v2) must still decode,
// and the loader must refuse to open a log from them: they name no log.
// Regenerate with LOGBOOK_UPDATE_GOLDEN=1 only for a deliberate format change.
@Suite struct GoldenReplicaSnapshotTests {
    static func fixtureURL(version: Int) -> URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/snapshot-v\(version)/replica.snapshot.hex")
    }
    static let expectedURL = fixtureURL(version: 3)
    static let identity = LogIdentity(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
    static let historyId: UInt64 = 0x5EED_0F_1057

    static func encode(_ state: some ReplicaContents, epochId: UInt64) -> (
        bytes: [UInt8], header: ReplicaSnapshotFile
    ) {
        ReplicaSnapshotCodec.encode(
            state, offset: 42, epochId: epochId, identity: identity, historyId: historyId,
            markNonce: 0x3A7C)
    }

    /// Two live records (one with a deleted field, one with a remote column), a tombstone.
    static func state() -> CRDT<String, String, Value> {
        let crdt = CRDT<String, String, Value>(nodeId: 7)
        crdt.insertOrUpdate("lamp/hall", fields: [("on", true), ("lux", 40)])
        crdt.insertOrUpdate("lamp/porch", fields: [("name", "Porch"), ("tags", ["out", nil])])
        _ = crdt.deleteField("lamp/hall", fieldName: "lux")
        crdt.insertOrUpdate("lamp/attic", fields: [("on", false)])
        _ = crdt.deleteRecord("lamp/attic")
        crdt.mergeChanges([
            Change(
                recordId: "lamp/porch", colName: "lux", value: 12, colVersion: 3, dbVersion: 90,
                nodeId: 2, localDbVersion: 0)
        ])
        return crdt
    }

    static func hexLines(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        var lines: [Substring] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 64, limitedBy: hex.endIndex) ?? hex.endIndex
            lines.append(hex[index..<next])
            index = next
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func bytes(hex text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count - 1, by: 2).map {
            UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0
        }
    }

    @Test func theGoldenSnapshotRoundTrips() throws {
        let state = Self.state()
        let (encoded, header) = Self.encode(state, epochId: 0xABCD_EF01)
        if ProcessInfo.processInfo.environment["LOGBOOK_UPDATE_GOLDEN"] == "1" {
            try Self.hexLines(encoded).write(
                to: Self.expectedURL, atomically: true, encoding: .utf8)
        }
        let golden = Self.bytes(hex: try String(contentsOf: Self.expectedURL, encoding: .utf8))
        #expect(Self.hexLines(encoded) == Self.hexLines(golden))
        #expect(header.entryCount == 6)  // on, lux (deleted), name, tags, lux (remote), attic

        let decoded = try ReplicaSnapshotCodec.decode(golden, nodeId: 7).get()
        #expect(decoded.0.offset == 42 && decoded.0.epochId == 0xABCD_EF01)
        #expect(decoded.0.identity == Self.identity && decoded.0.historyId == Self.historyId)
        #expect(decoded.0.clock == state.getClock().currentTime())
        #expect(decoded.1.getChangesSince(0) == state.getChangesSince(0))
        #expect(decoded.1.getTombstones() == state.getTombstones())
        #expect(StateDigest(of: decoded.1) == StateDigest(of: state))
        if case .success = ReplicaSnapshotCodec.decode(golden, nodeId: 8) {
            Issue.record("another node's snapshot was accepted")
        }
    }

    /// Format 1 differs in the header's version, digest (an earlier definition) and CRC;
    /// its body is the same, and the loader gives it the current digest of what it restored.
    @Test func aFormat1SnapshotLoadsWithItsDigestRecomputed() throws {
        let state = Self.state()
        let old = Self.bytes(
            hex: try String(contentsOf: Self.fixtureURL(version: 1), encoding: .utf8))
        let (current, currentHeader) = Self.encode(state, epochId: 0xABCD_EF01)
        let oldHeaderSize = ReplicaSnapshotFile.headerSizeBeforeVersion3
        #expect(old.count + ReplicaSnapshotFile.headerSize - oldHeaderSize == current.count)
        #expect(old[oldHeaderSize...] == current[ReplicaSnapshotFile.headerSize...])
        #expect(old[4..<8] == [1, 0, 0, 0])
        #expect(old[40..<56] != current[40..<56])  // the digest field

        let (header, restored) = try ReplicaSnapshotCodec.decode(old, nodeId: 7).get()
        #expect(header.version == 1)
        #expect(header.digest == currentHeader.digest)
        #expect(header.digest == StateDigest(of: state))
        #expect(header.check == currentHeader.check && header.clock == currentHeader.clock)
        #expect(restored.getChangesSince(0) == state.getChangesSince(0))
        #expect(restored.getTombstones() == state.getTombstones())
    }

    /// Formats 1 and 2 decode, but name no log: opening a log sets them aside, whatever
    /// their offset and epoch.
    @Test(arguments: [1, 2])
    func aSnapshotThatNamesNoLogIsNotLoaded(version: Int) throws {
        let old = Self.bytes(
            hex: try String(contentsOf: Self.fixtureURL(version: version), encoding: .utf8))
        let (header, _) = try ReplicaSnapshotCodec.decode(old, nodeId: 7).get()
        #expect(header.identity == nil && header.version == UInt32(version))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("golden-snapshot-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try Log.open(directory: directory)
        defer { try? log.close() }
        let reason = try #require(SnapshotLoader.rejection(of: header, log: log))
        #expect(reason.contains("names no log"), "\(reason)")
    }

    @Test func everyTruncationAndEveryFlippedByteIsRefused() throws {
        let (encoded, _) = Self.encode(Self.state(), epochId: 1)
        for cut in 0..<encoded.count {
            if case .success = ReplicaSnapshotCodec.decode(Array(encoded.prefix(cut)), nodeId: 7) {
                Issue.record("truncation to \(cut) bytes was accepted")
            }
        }
        for position in 0..<encoded.count {
            var flipped = encoded
            flipped[position] ^= 0x5A
            if case .success = ReplicaSnapshotCodec.decode(flipped, nodeId: 7) {
                Issue.record("a flipped byte at \(position) was accepted")
            }
        }
        var extended = encoded
        extended.append(0)
        if case .success = ReplicaSnapshotCodec.decode(extended, nodeId: 7) {
            Issue.record("a trailing byte was accepted")
        }
    }
}
