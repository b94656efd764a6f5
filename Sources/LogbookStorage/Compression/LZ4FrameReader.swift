/// Reads any stream of LZ4 frames the published frame format allows — every block size
/// (64 KiB to 4 MiB), independent or linked blocks, block and content checksums on or off,
/// a content size or none, skippable frames between — with this project's block decoder.
/// What `lz4` and liblz4 write, read without liblz4 (segments hold only the one frame shape
/// `LZ4Frame` writes; this is for everything else, and for testing the codec against them).
///
/// Hostile input fails with the byte position and the reason; nothing is read out of bounds,
/// and no more than `contentMax` bytes are produced. Frames that need a dictionary are refused.
public enum LZ4FrameReader {
    /// Why a stream did not decode, and where.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The byte offset in the stream.
        public var position: Int
        /// What was wrong there.
        public var reason: String
        /// "byte N: reason".
        public var description: String { "byte \(position): \(reason)" }
    }

    static let frameMagic: UInt32 = 0x184D_2204
    static let skippableMagics: ClosedRange<UInt32> = 0x184D_2A50...0x184D_2A5F

    /// The content of every frame in `stream`, in order.
    public static func decode(_ stream: UnsafeRawBufferPointer, contentMax: Int) -> Result<
        [UInt8], Failure
    > {
        var output: [UInt8] = []
        var position = 0
        while position < stream.count {
            guard let magic = word(stream, position) else {
                return .failure(Failure(position: position, reason: "a frame's magic is cut short"))
            }
            if skippableMagics.contains(magic) {
                // exactly: a 32-bit Int (watchOS) holds no size past 2^31.
                guard let word = word(stream, position + 4), let size = Int(exactly: word),
                    size <= stream.count - position - 8
                else {
                    return .failure(
                        Failure(position: position, reason: "a skippable frame runs past the end"))
                }
                position += 8 + size
                continue
            }
            guard magic == frameMagic else {
                return .failure(
                    Failure(position: position, reason: "0x\(zeroPaddedHex(magic)) is no LZ4 magic")
                )
            }
            var frame = FrameReading(stream: stream, position: position + 4, contentMax: contentMax)
            if let failure = frame.read(into: &output) { return .failure(failure) }
            position = frame.position
        }
        return .success(output)
    }

    /// The little-endian word at `position`, if four bytes are there.
    static func word(_ bytes: UnsafeRawBufferPointer, _ position: Int) -> UInt32? {
        guard position >= 0, position <= bytes.count - 4 else { return nil }
        return bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian
    }
}

/// One frame being read, after its magic.
private struct FrameReading {
    let stream: UnsafeRawBufferPointer
    var position: Int
    let contentMax: Int
    var independent = true
    var blockChecksums = false
    var contentChecksum = false
    var contentSize: UInt64?
    var blockSizeMax = 0

    init(stream: UnsafeRawBufferPointer, position: Int, contentMax: Int) {
        self.stream = stream
        self.position = position
        self.contentMax = contentMax
    }

    func failure(_ reason: String, at place: Int? = nil) -> LZ4FrameReader.Failure {
        LZ4FrameReader.Failure(position: place ?? position, reason: reason)
    }

    /// Reads the frame's descriptor, blocks and checksum, appending its content.
    mutating func read(into output: inout [UInt8]) -> LZ4FrameReader.Failure? {
        if let failure = readDescriptor() { return failure }
        let contentStart = output.count
        while true {
            guard let field = LZ4FrameReader.word(stream, position) else {
                return failure("the frame ends before its end mark")
            }
            let blockStart = position
            position += 4
            if field == 0 { break }
            if let failure = readBlock(field, at: blockStart, into: &output, from: contentStart) {
                return failure
            }
        }
        let content = output.count - contentStart
        if let contentSize, contentSize != UInt64(content) {
            return failure("the frame holds \(content) bytes, its header says \(contentSize)")
        }
        if contentChecksum {
            guard let expected = LZ4FrameReader.word(stream, position) else {
                return failure("the content checksum is cut short")
            }
            let actual = output.withUnsafeBytes {
                XXHash32.hash(UnsafeRawBufferPointer(rebasing: $0[contentStart...]))
            }
            guard actual == expected else { return failure("the content checksum does not match") }
            position += 4
        }
        return nil
    }

    /// FLG, BD, the optional content size and dictionary id, and the header checksum.
    private mutating func readDescriptor() -> LZ4FrameReader.Failure? {
        let start = position
        guard stream.count - position >= 3 else { return failure("the frame header is cut short") }
        let flags = stream[position]
        let blockDescriptor = stream[position + 1]
        guard flags >> 6 == 1 else { return failure("frame version \(flags >> 6), not 1") }
        guard flags & 0x02 == 0, blockDescriptor & 0x8F == 0 else {
            return failure("reserved bits of the frame header are set")
        }
        guard flags & 0x01 == 0 else { return failure("the frame needs a dictionary") }
        let sizeCode = Int(truncatingIfNeeded: blockDescriptor >> 4) & 7
        guard sizeCode >= 4 else { return failure("block size code \(sizeCode) is reserved") }
        blockSizeMax = 1 << (2 * sizeCode + 8)
        independent = flags & 0x20 != 0
        blockChecksums = flags & 0x10 != 0
        contentChecksum = flags & 0x04 != 0
        position += 2
        if flags & 0x08 != 0 {
            guard stream.count - position >= 9 else {
                return failure("the frame's content size is cut short")
            }
            contentSize =
                stream.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                .littleEndian
            position += 8
        }
        let checksum = XXHash32.hash(UnsafeRawBufferPointer(rebasing: stream[start..<position]))
        guard UInt8(truncatingIfNeeded: checksum >> 8) == stream[position] else {
            return failure("the frame header checksum does not match")
        }
        position += 1
        return nil
    }

    /// One block: its size field was `field`, read at `blockStart`.
    private mutating func readBlock(
        _ field: UInt32, at blockStart: Int, into output: inout [UInt8], from contentStart: Int
    ) -> LZ4FrameReader.Failure? {
        let isRaw = field & LZ4Frame.rawBlockFlag != 0
        let length = Int(truncatingIfNeeded: field & ~LZ4Frame.rawBlockFlag)
        guard length <= blockSizeMax else {
            return failure(
                "a block of \(length) bytes exceeds the frame's \(blockSizeMax)", at: blockStart)
        }
        guard length + (blockChecksums ? 4 : 0) <= stream.count - position else {
            return failure("a block runs past the end of the stream", at: blockStart)
        }
        let stored = UnsafeRawBufferPointer(rebasing: stream[position..<(position + length)])
        position += length
        if blockChecksums {
            guard XXHash32.hash(stored) == LZ4FrameReader.word(stream, position) else {
                return failure("a block checksum does not match", at: blockStart)
            }
            position += 4
        }
        let room = min(blockSizeMax, contentMax - output.count)
        if isRaw {
            guard length <= room else { return failure("the content exceeds \(contentMax) bytes") }
            output.append(contentsOf: stored)
            return nil
        }
        // A block decodes to at most 255 bytes per byte of it (a run of 255s in a length),
        // so a small block needs no room for a whole block's worth.
        let capacity = max(min(room, length * 256 + 64), 0)
        let start = output.count
        output.append(contentsOf: Array(repeating: 0, count: capacity))
        let written = output.withUnsafeMutableBytes { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            return LZ4BlockDecoder.decode(
                stored, into: base, start: start, capacity: capacity,
                historyStart: independent ? start : contentStart)
        }
        guard let written else {
            output.removeSubrange(start...)
            return failure(
                room < blockSizeMax
                    ? "a block does not decompress within the \(contentMax) bytes allowed"
                    : "a block does not decompress", at: blockStart)
        }
        output.removeSubrange((start + written)...)
        return nil
    }
}
