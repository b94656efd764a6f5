import LogbookStorage

extension FuzzTarget {
    /// The project's own LZ4 codec. The first byte picks what the rest is: even, a stream of
    /// LZ4 frames for `LZ4FrameReader` (any frame the format allows, checksums and linked
    /// blocks included), whose content, when it decodes, must survive a segment frame
    /// written by the own codec and read back by both codecs; odd, content to compress with
    /// both of the own compressor's searches, which both decoders must give back exactly.
    static func lz4OwnCodec(_ bytes: UnsafeRawBufferPointer) {
        guard let mode = bytes.first else { return }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
        if mode % 2 == 0 {
            guard case .success(let content) = LZ4FrameReader.decode(rest, contentMax: 1 << 20)
            else { return }
            content.withUnsafeBytes { roundTrip($0, hcLevel: nil) }
        } else {
            roundTrip(rest, hcLevel: nil)
            roundTrip(rest, hcLevel: Int32(mode >> 4))
        }
    }

    /// Writes `content` as a segment frame with the own codec and reads it back with both.
    private static func roundTrip(_ content: UnsafeRawBufferPointer, hcLevel: Int32?) {
        var frame: [UInt8] = []
        LZ4Frame.encode(content, into: &frame, hcLevel: hcLevel, ownCodec: true)
        for ownCodec in [true, false] {
            var decoded: [UInt8] = []
            let failure = frame.withUnsafeBytes {
                LZ4Frame.decode($0, rawLength: content.count, into: &decoded, ownCodec: ownCodec)
            }
            precondition(failure == nil, "a frame the own codec wrote does not decode: \(failure)")
            precondition(decoded.elementsEqual(content), "a frame decodes to other bytes")
        }
        frame.withUnsafeBytes { stream in
            guard case .success(let read) = LZ4FrameReader.decode(stream, contentMax: content.count)
            else { preconditionFailure("the frame reader refuses a frame the own codec wrote") }
            precondition(read.elementsEqual(content), "the frame reader reads other bytes")
        }
    }
}
