import Foundation
import Logbook
import LogbookCRDT
import Testing

// Golden change records pin the binary change format (docs/format/change-record.md): each
// line of Fixtures/segment-v1/change-records.expected.txt is the hex encoding of one record
// below. Decoding the hex must give the record; encoding the record must give the hex.
// Regenerate with LOGBOOK_UPDATE_GOLDEN=1 only for a deliberate format change.
@Suite struct GoldenChangeRecordTests {
    static let expectedURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/segment-v1/change-records.expected.txt")

    static let records: [ChangeRecord] = {
        func set(_ value: Value) -> ChangeRecord {
            .change(
                Change(
                    recordId: "entity/lamp", colName: "content.x", value: value, colVersion: 3,
                    dbVersion: 300, nodeId: 7, localDbVersion: 301, flags: 2))
        }
        return [
            set(.null), set(true), set(false), set(0), set(-1), set(.int(.max)), set(.int(.min)),
            set(1.5),
            set("Zürich"), set(.bytes([0, 255])), set([1, "a", [nil]]),
            set(["b": 1, "a": ["c": true]]),
            .change(
                Change(
                    recordId: "entity/lamp", colName: "name", value: nil, colVersion: 4,
                    dbVersion: 5, nodeId: 1, localDbVersion: 6)),
            .change(
                Change(
                    recordId: "entity/lamp", colName: nil, value: nil, colVersion: .max,
                    dbVersion: 9, nodeId: 1, localDbVersion: 10)),
            .clock(1 << 40),
            // Added with the `unsigned` tag: the lines above are kept as they were.
            set(.unsigned(1 << 63)), set(.unsigned(.max)), set(.double(-0.0)), set(22.0),
            // Added with the snapshot mark (kind 5): 05, varint 300, the nonce little-endian.
            .snapshotMark(time: 300, nonce: 0x0102_0304_0506_0708),
        ]
    }()

    static func hex(_ record: ChangeRecord) -> String {
        var bytes: [UInt8] = []
        ChangeRecordCodec.encode(record, into: &bytes)
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func goldenChangeRecordsRoundTrip() throws {
        if ProcessInfo.processInfo.environment["LOGBOOK_UPDATE_GOLDEN"] == "1" {
            try (Self.records.map(Self.hex).joined(separator: "\n") + "\n").write(
                to: Self.expectedURL, atomically: true, encoding: .utf8)
        }
        let lines = try String(contentsOf: Self.expectedURL, encoding: .utf8).split(separator: "\n")
            .map(String.init)
        #expect(lines.count == Self.records.count)
        for (line, record) in zip(lines, Self.records) {
            #expect(Self.hex(record) == line)
            var bytes: [UInt8] = []
            var index = line.startIndex
            while index < line.endIndex {
                let next = line.index(index, offsetBy: 2)
                bytes.append(UInt8(line[index..<next], radix: 16) ?? 0)
                index = next
            }
            #expect(bytes.withUnsafeBytes { ChangeRecordCodec.decode($0) } == .success(record))
        }
    }

    /// Tag 9 holds integers above Int64.max only: one that fits is an int, so the same
    /// integer never has two encodings (and two digests).
    @Test func anUnsignedThatFitsInt64IsNotAValue() throws {
        let record = try #require(
            Self.records.first { record in
                if case .change(let change) = record, case .unsigned? = change.value { return true }
                return false
            })
        var bytes: [UInt8] = []
        ChangeRecordCodec.encode(record, into: &bytes)
        #expect(bytes.withUnsafeBytes { ChangeRecordCodec.decode($0) } == .success(record))
        // The payload is the last 8 bytes, little-endian: make it 2^63 − 1.
        bytes.replaceSubrange(
            (bytes.count - 8)..., with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        if case .success(let decoded) = bytes.withUnsafeBytes({ ChangeRecordCodec.decode($0) }) {
            Issue.record("an unsigned of 2^63 - 1 decoded as \(decoded)")
        }
    }

    @Test func everyTruncationAndEveryByteFlipIsRejectedOrDecodesToSomethingElse() {
        // Below the batch CRC, a damaged record must never crash the decoder; a truncated one
        // must never decode at all.
        for record in Self.records {
            var bytes: [UInt8] = []
            ChangeRecordCodec.encode(record, into: &bytes)
            for cut in 0..<bytes.count {
                let result = bytes.prefix(cut).withUnsafeBytes { ChangeRecordCodec.decode($0) }
                if case .success = result {
                    Issue.record("truncation to \(cut) of \(Self.hex(record)) decoded")
                }
            }
            for position in 0..<bytes.count {
                var flipped = bytes
                flipped[position] ^= 0xA5
                let result = flipped.withUnsafeBytes { ChangeRecordCodec.decode($0) }
                if case .success(let decoded) = result { #expect(decoded != record) }
            }
        }
    }
}
