import LogbookStorage
import Testing

// Programmer errors stop the process (precondition), they are not thrown: each public
// precondition has an exit test that runs the misuse in a child process.
@Suite struct PreconditionExitTests {
    @Test func batchOffsetsMustRise() async {
        await #expect(processExitsWith: .failure) {
            var encoder = BatchEncoder()
            [UInt8]([1]).withUnsafeBytes { encoder.append(offset: 5, version: 0, record: $0) }
            [UInt8]([2]).withUnsafeBytes { encoder.append(offset: 5, version: 0, record: $0) }
        }
    }

    @Test func anEmptyBatchCannotBeEncoded() async {
        await #expect(processExitsWith: .failure) {
            _ = BatchEncoder().encode(previousBatchCRC: 0)
        }
    }

    @Test func aRecordOverTheLimitCannotBeBatched() async {
        await #expect(processExitsWith: .failure) {
            var encoder = BatchEncoder()
            let record = [UInt8](repeating: 0, count: Limits.recordSizeMax + 1)
            record.withUnsafeBytes { encoder.append(offset: 0, version: 0, record: $0) }
        }
    }
}
