import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// Inputs the fuzzers (Fuzz/, scripts/fuzz.sh) found, kept as tests; each input is also in
// Fuzz/Seeds so the fuzzer starts from it.
@Suite struct FuzzRegressionTests {
    /// change-record: a double whose bits are a NaN with a payload. NaN is not equal to
    /// itself, so the log's round trip must be checked on bytes: they survive bit for bit.
    @Test func aNaNWithAPayloadRoundTripsBitForBit() throws {
        let input: [UInt8] = [
            0x01, 0xad, 0x02, 0xac, 0x02, 0x07, 0x02, 0x0b, 0x65, 0x6e, 0x74, 0x69, 0x74, 0x79,
            0x2f, 0x6c, 0x61, 0x6d, 0x70, 0x03, 0x09, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74,
            0x2e, 0x78, 0x04, 0x00, 0x78, 0x04, 0x00, 0xff, 0xff, 0xff, 0xff,
        ]
        let record = try input.withUnsafeBytes { try ChangeRecordCodec.decode($0).get() }
        guard case .change(let change) = record, case .double(let number)? = change.value else {
            Issue.record("expected a change holding a double, got \(record)")
            return
        }
        #expect(number.isNaN)
        var encoded: [UInt8] = []
        ChangeRecordCodec.encode(record, into: &encoded)
        #expect(encoded == input)
    }

    /// replica-snapshot: an entry of no bytes. Reading its key looked at its first byte
    /// before its length (a slice of no bytes still has an address): a trap in debug builds,
    /// a read past the record in release. Compaction reads keys of records no replay decoded
    /// (those below a snapshot's offset), so the log's bytes reach it unchecked.
    @Test func theKeyOfARecordOfNoBytesIsRefused() {
        let bytes: [UInt8] = [1, 0, 0, 0]
        bytes.withUnsafeBytes { buffer in
            for start in 0...buffer.count {
                let empty = UnsafeRawBufferPointer(rebasing: buffer[start..<start])
                #expect(ChangeRecordCodec.readKey(empty) == nil)
            }
        }
    }

    /// directory-files: an epochs file (checksum valid) naming an epoch that starts past the
    /// log's end. The first write began its epoch before that one: a trap. A power cut can
    /// leave the same file (records a crashed process left unsynced are read by the next
    /// open, which begins its epoch after them; the cut then takes them), so the epoch is
    /// forgotten at open, and the next write begins one of its own.
    @Test func anEpochStartingPastTheLogIsForgotten() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        for index in 0..<5 { try await logbook.insertOrUpdate("r\(index)", fields: [("v", 1)]) }
        try logbook.close()
        let lines = Array("logbook epochs 1\n17173586421 7861\n".utf8)
        let file = lines + Array("crc32c \(String(CRC32C.checksum(lines), radix: 16))\n".utf8)
        try Data(file).write(to: URL(fileURLWithPath: directory.appending("epochs")))

        logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: smallLogOptions())
        let end = logbook.nextOffset
        #expect(
            logbook.recovery.epochActions == [
                "forgot epoch 17173586421 starting at offset 7861, past the log's end \(end)"
            ])
        #expect(!logbook.recovery.isClean)
        try await logbook.insertOrUpdate("after", fields: [("v", 2)])
        try logbook.close()

        let reopened = try Logbook.open(
            directory: directory.path, nodeId: 1, options: smallLogOptions())
        defer { try? reopened.close() }
        #expect(reopened.recovery.epochActions.isEmpty)
        let written = reopened.epochId(holding: end)
        #expect(written != 0 && written != 17_173_586_421)
        #expect(reopened.records()["after"] != nil)
    }
}
