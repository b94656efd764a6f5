import Foundation
import LogbookCRDT
import Testing

@testable import Logbook

// A golden replica snapshot pins the snapshot format (docs/format/replica-snapshot.md):
// Fixtures/snapshot-v2/replica.snapshot.hex is the file written for the state below, 64 hex
// digits a line. Encoding the state must give those bytes; decoding them must give the
// state; every truncation and every flipped byte must be refused, never trusted. The file
// format 1 wrote for the same state (Fixtures/snapshot-v1) must still load.
// Regenerate with LOGBOOK_UPDATE_GOLDEN=1 only for a deliberate format change.
@Suite struct GoldenReplicaSnapshotTests {
    static func fixtureURL(version: Int) -> URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/snapshot-v\(version)/replica.snapshot.hex")
    }
    static let expectedURL = fixtureURL(version: 2)

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
        let (encoded, header) = ReplicaSnapshotCodec.encode(state, offset: 42, epochId: 0xABCD_EF01)
        if ProcessInfo.processInfo.environment["LOGBOOK_UPDATE_GOLDEN"] == "1" {
            try Self.hexLines(encoded).write(
                to: Self.expectedURL, atomically: true, encoding: .utf8)
        }
        let golden = Self.bytes(hex: try String(contentsOf: Self.expectedURL, encoding: .utf8))
        #expect(Self.hexLines(encoded) == Self.hexLines(golden))
        #expect(header.entryCount == 6)  // on, lux (deleted), name, tags, lux (remote), attic

        let decoded = try ReplicaSnapshotCodec.decode(golden, nodeId: 7).get()
        #expect(decoded.0.offset == 42 && decoded.0.epochId == 0xABCD_EF01)
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
        let (current, currentHeader) = ReplicaSnapshotCodec.encode(
            state, offset: 42, epochId: 0xABCD_EF01)
        #expect(old.count == current.count)
        #expect(
            old[ReplicaSnapshotFile.headerSize...] == current[ReplicaSnapshotFile.headerSize...])
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

    @Test func everyTruncationAndEveryFlippedByteIsRefused() throws {
        let (encoded, _) = ReplicaSnapshotCodec.encode(Self.state(), offset: 42, epochId: 1)
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
