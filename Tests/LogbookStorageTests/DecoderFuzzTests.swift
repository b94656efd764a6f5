import Foundation
import LogbookStorage
import LogbookTesting
import Testing

// Decoders fed hostile input never crash and never accept it: seeded random bytes, random
// mutations of valid encodings, and every truncation, through the batch header, the LZ4
// frame, the batch unpacker, the varint reader and the segment index.
@Suite struct DecoderFuzzTests {
    private func validBatch(_ random: inout SeededGenerator) -> [UInt8] {
        var encoder = BatchEncoder()
        for offset in 0..<UInt64(Int.random(in: 1...20, using: &random)) {
            let record = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                UInt8.random(in: 0...3, using: &random)
            }
            record.withUnsafeBytes {
                encoder.append(offset: offset * 2, version: offset, record: $0)
            }
        }
        return encoder.encode(previousBatchCRC: 0).bytes
    }

    /// True when the bytes decode as a whole, checked batch.
    private func acceptsBatch(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { all in
            guard case .success(let header) = BatchHeader.decode(all), all.count == header.totalSize
            else { return false }
            var raw: [UInt8] = []
            let payload = UnsafeRawBufferPointer(rebasing: all[BatchHeader.size...])
            return BatchDecoder.unpack(header: header, storedPayload: payload, into: &raw) == nil
        }
    }

    @Test func randomBytesAreNeverABatch() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            #expect(!acceptsBatch(bytes))
            var output: [UInt8] = []
            let failure = bytes.withUnsafeBytes {
                LZ4Frame.decode(
                    $0, rawLength: Int.random(in: 0...1000, using: &random), into: &output)
            }
            #expect(failure != nil)
        }
    }

    @Test func mutatedBatchesAreRejectedAndTruncatedOnesToo() {
        var random = SeededGenerator(seed: 12)
        for _ in 0..<300 {
            let batch = validBatch(&random)
            #expect(acceptsBatch(batch))
            var mutated = batch
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                mutated[Int.random(in: 0..<mutated.count, using: &random)] ^= UInt8.random(
                    in: 1...255, using: &random)
            }
            #expect(!acceptsBatch(mutated))
            #expect(
                !acceptsBatch(Array(batch.prefix(Int.random(in: 0..<batch.count, using: &random)))))
        }
    }

    @Test func lz4FramesWithHostileBlockSizesAreRejected() {
        var random = SeededGenerator(seed: 13)
        for _ in 0..<2000 {
            var frame: [UInt8] = [0x04, 0x22, 0x4D, 0x18, 0x60, 0x70, 0x73]
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let size = UInt32.random(in: 0...UInt32.max, using: &random)
                withUnsafeBytes(of: size.littleEndian) { frame.append(contentsOf: $0) }
                frame += (0..<Int.random(in: 0...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            }
            var output: [UInt8] = []
            let failure = frame.withUnsafeBytes {
                LZ4Frame.decode(
                    $0, rawLength: Int.random(in: 1...4096, using: &random), into: &output)
            }
            #expect(failure != nil)
        }
    }

    @Test func varintsNeverOverflowOrOverread() {
        var random = SeededGenerator(seed: 14)
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            var position = 0
            let value = bytes.withUnsafeBytes { Varint.read($0, at: &position) }
            #expect(position <= bytes.count)
            if let value {
                var encoded: [UInt8] = []
                Varint.append(value, to: &encoded)
                #expect(
                    encoded.count <= position,
                    "a decoded value re-encodes no longer than it was read")
            }
        }
    }

    @Test func damagedIndexFilesAreRefused() {
        var random = SeededGenerator(seed: 15)
        var index = SegmentIndex(baseOffset: 10)
        var encoder = BatchEncoder()
        [UInt8]([1, 2, 3]).withUnsafeBytes { encoder.append(offset: 10, version: 1, record: $0) }
        let (_, header) = encoder.encode(previousBatchCRC: 0)
        index.noteBatch(header, at: 0, intervalBytes: 1)
        let bytes = index.encoded()
        #expect(SegmentIndex.decode(bytes, baseOffset: 10, segmentSize: index.segmentSize) == index)
        for position in 0..<bytes.count {
            var flipped = bytes
            flipped[position] ^= UInt8.random(in: 1...255, using: &random)
            #expect(
                SegmentIndex.decode(flipped, baseOffset: 10, segmentSize: index.segmentSize) == nil)
        }
        for cut in 0..<bytes.count {
            #expect(
                SegmentIndex.decode(
                    Array(bytes.prefix(cut)), baseOffset: 10, segmentSize: index.segmentSize) == nil
            )
        }
    }
}
