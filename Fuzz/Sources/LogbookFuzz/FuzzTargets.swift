import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import LogbookViews

/// One libFuzzer target: a decoder or importer fed arbitrary bytes. Each must never crash
/// or hang; where a property relates input and output it is checked with `precondition`,
/// so a violation is a crash the fuzzer reports and keeps (docs/TESTING.md#fuzzing).
struct FuzzTarget: Sendable {
    var name: String
    var run: @Sendable (UnsafeRawBufferPointer) -> Void

    static let all: [FuzzTarget] = [
        FuzzTarget(name: "batch", run: batch),
        FuzzTarget(name: "lz4-and-framing", run: lz4AndFraming),
        FuzzTarget(name: "lz4-own-codec", run: lz4OwnCodec),
        FuzzTarget(name: "change-record", run: changeRecord),
        FuzzTarget(name: "crdt-lite-json", run: crdtLiteJSON),
        FuzzTarget(name: "goodies", run: goodies),
        FuzzTarget(name: "soda", run: soda),
        FuzzTarget(name: "shipped-batches", run: shippedBatches),
        FuzzTarget(name: "replica-snapshot", run: replicaSnapshot),
        FuzzTarget(name: "view-checkpoints", run: viewCheckpoints),
        FuzzTarget(name: "peer-changes", run: peerChanges),
        FuzzTarget(name: "directory-files", run: directoryFiles),
    ]

    /// A stored batch: header, then checksum, LZ4 frame and record framing.
    static func batch(_ bytes: UnsafeRawBufferPointer) {
        guard case .success(let header) = BatchHeader.decode(bytes),
            bytes.count >= BatchHeader.size
        else { return }
        var raw: [UInt8] = []
        let payload = UnsafeRawBufferPointer(rebasing: bytes[BatchHeader.size...])
        let stored = UnsafeRawBufferPointer(
            rebasing: payload.prefix(min(payload.count, Int(header.storedLength))))
        if BatchDecoder.unpack(header: header, storedPayload: stored, into: &raw) == nil {
            precondition(raw.count == Int(header.rawLength), "unpacked size differs")
        }
    }

    /// The paths behind the checksum, which random bytes rarely pass: the first four bytes
    /// give a raw length, the rest is an LZ4 frame; what decodes is read as record framing.
    static func lz4AndFraming(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4 else { return }
        let rawLength = Int(bytes.loadUnaligned(as: UInt32.self).littleEndian % (1 << 20))
        var raw: [UInt8] = []
        let frame = UnsafeRawBufferPointer(rebasing: bytes[4...])
        // The input itself as record framing, too: that decoder sits behind both.
        _ = BatchDecoder.forEachRecord(frame) { _, _ in true }
        guard LZ4Frame.decode(frame, rawLength: rawLength, into: &raw) == nil else { return }
        precondition(raw.count == rawLength, "LZ4 decoded \(raw.count), expected \(rawLength)")
        _ = raw.withUnsafeBytes { BatchDecoder.forEachRecord($0) { _, _ in true } }
    }

    /// A change record: what decodes re-encodes to bytes that decode and re-encode to the
    /// same bytes (compared as bytes: a NaN double is not equal to itself, and its payload
    /// must survive bit for bit), and its key reads the same fields; values measure as
    /// they encode.
    static func changeRecord(_ bytes: UnsafeRawBufferPointer) {
        guard case .success(let record) = ChangeRecordCodec.decode(bytes) else { return }
        var encoded: [UInt8] = []
        ChangeRecordCodec.encode(record, into: &encoded)
        encoded.withUnsafeBytes { again in
            guard case .success(let decodedAgain) = ChangeRecordCodec.decode(again) else {
                preconditionFailure("a decoded record's encoding does not decode")
            }
            var encodedAgain: [UInt8] = []
            ChangeRecordCodec.encode(decodedAgain, into: &encodedAgain)
            precondition(encodedAgain.elementsEqual(again), "re-encoding is not a fixed point")
            guard let key = ChangeRecordCodec.readKey(again) else {
                preconditionFailure("a decodable record has no readable key")
            }
            precondition(key.localDbVersion == record.version, "key and record disagree")
        }
        if case .change(let change) = record, let value = change.value {
            var valueBytes: [UInt8] = []
            ValueCodec.append(value, to: &valueBytes)
            if case .success(let size) = ValueCodec.encodedSize(of: value) {
                precondition(
                    size == valueBytes.count, "measured \(size), encoded \(valueBytes.count)")
            }
        }
    }

    /// crdt-lite JSON, both the array and the JSON-lines forms. Differential and round trip:
    /// what Logbook's reader reads, `JSONDecoder` must read alike but for the number kinds
    /// Foundation loses (`ValueFidelity.asFoundationReads`), and written back with
    /// `ChangeJSON.encode` it must read as itself to the bit, or the target stops the run.
    static func crdtLiteJSON(_ bytes: UnsafeRawBufferPointer) {
        typealias PlainChange = Change<String, String, Value>
        let data = Data(bytes)
        if let array = try? ChangeJSON.decodeArray(data, as: PlainChange.self) {
            let byFoundation = try? JSONDecoder().decode([PlainChange].self, from: data)
            precondition(
                byFoundation?.map(ValueFidelity.asFoundationReads)
                    == array.map(ValueFidelity.asFoundationReads),
                "decodeArray differs from JSONDecoder")
            array.forEach(expectRoundTrip)
        }
        if let single = try? ChangeJSON.decode(data, as: PlainChange.self) {
            let byFoundation = try? JSONDecoder().decode(PlainChange.self, from: data)
            precondition(
                byFoundation.map(ValueFidelity.asFoundationReads)
                    == ValueFidelity.asFoundationReads(single),
                "decode differs from JSONDecoder")
            expectRoundTrip(single)
        }
        _ = try? ChangeJSON.decodeLines(data) as [PlainChange]
        var reader = ChangeJSONLinesReader<String, String, Value>(data)
        for _ in 0..<10_000 {
            do { if try reader.next() == nil { break } } catch { continue }
        }
    }

    /// A change read from JSON, written in each form and read again, is itself to the bit.
    private static func expectRoundTrip(_ change: Change<String, String, Value>) {
        for format in ChangeJSONFormat.allCases {
            guard let written = try? ChangeJSON.encode(change, format: format) else {
                // Only a value JSON cannot carry fails to encode, and no reader makes one.
                preconditionFailure("a change read from JSON does not encode")
            }
            let again = try? ChangeJSON.decode(written, as: Change<String, String, Value>.self)
            precondition(ValueFidelity.isExactlyEqual(again, change), "round trip differs")
        }
    }

    /// The Goodies home-graph importer.
    static func goodies(_ bytes: UnsafeRawBufferPointer) {
        _ = try? GoodiesDocument(parsing: Array(bytes))
    }

    /// The SODA drawbridge rows importer, and Bridget's row rules on what it returns.
    static func soda(_ bytes: UnsafeRawBufferPointer) {
        guard let rows = try? SODARows.parse(Array(bytes)) else { return }
        for row in rows.prefix(1000) {
            _ = BridgeOpening.parse(row)
            _ = BridgeRules.validate(row)
        }
    }

    /// What a follower does with a peer's `GET /log` body: every batch checked, every
    /// record decoded, offsets rising from the first eight bytes' offset.
    static func shippedBatches(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return }
        let from = bytes.loadUnaligned(as: UInt64.self).littleEndian
        let body = Array(bytes[8...])
        guard let (changes, end) = try? ShippedBatchReader.changes(in: body, from: from) else {
            return
        }
        precondition(end >= from, "the batches end at \(end), before \(from)")
        precondition(changes.count <= body.count, "more changes than bytes")
    }
}
