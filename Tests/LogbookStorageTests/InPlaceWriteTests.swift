import LogbookStorage
import LogbookTesting
import Testing

/// The in-place writers (`Varint.write`, `[UInt8].append(byteCount:writtenBy:)`) against
/// the byte-at-a-time `Varint.append` and the decoder: same bytes, sizes known beforehand.
@Suite struct InPlaceWriteTests {
    /// Every varint length (1 to 10 bytes) at both of its ends, and random values.
    static let values: [UInt64] = {
        var values: [UInt64] = [0, .max]
        for bits in stride(from: 7, to: 64, by: 7) {
            values += [(1 << UInt64(bits)) - 1, 1 << UInt64(bits)]
        }
        var random = SeededGenerator(seed: 31)
        values += (0..<500).map { _ in
            UInt64.random(in: 0...UInt64.max, using: &random)
                >> (UInt64.random(in: 0..<64, using: &random))
        }
        return values
    }()

    @Test func varintsWrittenInPlaceAreTheAppendedBytesOfTheSizeSaid() {
        for value in Self.values {
            var appended: [UInt8] = []
            Varint.append(value, to: &appended)
            #expect(Varint.size(of: value) == appended.count, "size of \(value)")
            var inPlace: [UInt8] = [0xAA]
            inPlace.append(byteCount: Varint.size(of: value)) { Varint.write(value, to: $0) }
            #expect(inPlace == [0xAA] + appended, "bytes of \(value)")
            var position = 1
            #expect(inPlace.withUnsafeBytes { Varint.read($0, at: &position) } == value)
            #expect(position == inPlace.count)
        }
    }

    @Test func sizeAtEachLengthBoundary() {
        #expect(Varint.size(of: 0) == 1)
        #expect(Varint.size(of: 127) == 1)
        #expect(Varint.size(of: 128) == 2)
        #expect(Varint.size(of: 16_383) == 2)
        #expect(Varint.size(of: 16_384) == 3)
        #expect(Varint.size(of: .max) == Varint.sizeMax)
    }

    /// A batch built from records written in place frames the same bytes as one built from
    /// the records' bytes.
    @Test func recordsWrittenInPlaceFrameTheSameBatch() {
        let records: [[UInt8]] = [
            [], [1], [UInt8](repeating: 7, count: 127),
            [UInt8](repeating: 9, count: 128), [UInt8](repeating: 3, count: 20_000),
        ]
        var copied = BatchEncoder()
        var written = BatchEncoder()
        for (index, record) in records.enumerated() {
            let offset = UInt64(index * 3 + 5)
            record.withUnsafeBytes { copied.append(offset: offset, version: 1, record: $0) }
            written.append(offset: offset, version: 1, byteCount: record.count) { pointer in
                for (position, byte) in record.enumerated() {
                    pointer.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
                }
                return record.count
            }
        }
        #expect(written.raw == copied.raw)
        #expect(
            written.encode(previousBatchCRC: 1).bytes == copied.encode(previousBatchCRC: 1).bytes)
    }

    /// `writeBytes` copies every length from 0 to 40 (the inline copies up to 16 bytes and
    /// `memmove` past them) from and to every alignment in a word: exactly the bytes, and
    /// not one byte either side of the destination.
    @Test func bytesCopiedInPlaceAreExactlyTheSourceAtEveryLengthAndAlignment() {
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...40 {
            for sourceOffset in 0..<8 {
                for destinationOffset in 0..<8 {
                    var destination = [UInt8](repeating: 0xEE, count: 64)
                    let written = source.withUnsafeBytes { from in
                        destination.withUnsafeMutableBytes { to in
                            guard let base = to.baseAddress else { return -1 }
                            return UnsafeRawBufferPointer(
                                rebasing: from[sourceOffset..<(sourceOffset + count)]
                            )
                            .writeBytes(to: base + destinationOffset)
                        }
                    }
                    var expected = [UInt8](repeating: 0xEE, count: 64)
                    expected.replaceSubrange(
                        destinationOffset..<(destinationOffset + count),
                        with: source[sourceOffset..<(sourceOffset + count)])
                    #expect(written == count)
                    #expect(
                        destination == expected,
                        "\(count) bytes from offset \(sourceOffset) to offset \(destinationOffset)")
                }
            }
        }
    }
}
