import CCRC32C
import LogbookTesting
import Testing

// CRC32C against published check values (RFC 3720 appendix B.4 and the "123456789" check),
// and the hardware and portable paths against each other on random inputs of every alignment.
@Suite struct CRC32CTests {
    private func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { logbook_crc32c_extend(0, $0.baseAddress, $0.count) }
    }

    private func portable(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { logbook_crc32c_extend_portable(0, $0.baseAddress, $0.count) }
    }

    @Test func matchesPublishedCheckValues() {
        #expect(crc(Array("123456789".utf8)) == 0xE306_9283)
        #expect(crc([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(crc([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(crc(Array(0...31)) == 0x46DD_794E)
        #expect(crc([]) == 0)
    }

    @Test func extendingInPiecesEqualsOneCall() {
        let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
        let whole = crc(bytes)
        for split in 0...bytes.count {
            let head = bytes[..<split].withUnsafeBytes {
                logbook_crc32c_extend(0, $0.baseAddress, $0.count)
            }
            let both = bytes[split...].withUnsafeBytes {
                logbook_crc32c_extend(head, $0.baseAddress, $0.count)
            }
            #expect(both == whole)
        }
    }

    @Test func hardwareAndPortablePathsAgree() {
        var random = SeededGenerator(seed: 32)
        let buffer = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        for _ in 0..<300 {
            let start = Int.random(in: 0..<64, using: &random)
            let end = Int.random(in: start...buffer.count, using: &random)
            let slice = buffer[start..<end]
            let viaDispatch = slice.withUnsafeBytes {
                logbook_crc32c_extend(0, $0.baseAddress, $0.count)
            }
            #expect(viaDispatch == portable(slice))
        }
    }
}
