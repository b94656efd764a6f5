/// Writes and reads the LZ4 frames that hold batch payloads, so a segment is a valid LZ4
/// stream (`lz4 -dc segment.seg` prints the raw records).
///
/// Only one frame shape is written and accepted: independent blocks of at most 4 MiB, no
/// checksums inside the frame (the batch CRC32C covers it), no content size:
///
/// ```
/// +----------+-----+-----+----+  +------------+----------------+     +----------+
/// | 04224D18 | FLG | BD  | HC |  | block size | block data ... | ... | 00000000 |
/// |  magic   | 60  | 70  | 73 |  | u32 LE     | (bit 31 = raw) |     | end mark |
/// +----------+-----+-----+----+  +------------+----------------+     +----------+
/// ```
///
/// A block that LZ4 cannot shrink is stored raw with bit 31 of its size set; that is how
/// "uncompressed when smaller" is expressed inside the frame.
public enum LZ4Frame {
    /// The 7 header bytes: magic, FLG (version 1, independent blocks), BD (4 MiB blocks) and
    /// the header checksum byte `(XXH32(FLG, BD) >> 8) & 0xFF`.
    static let header: [UInt8] = [0x04, 0x22, 0x4D, 0x18, 0x60, 0x70, 0x73]
    static let endMark: [UInt8] = [0, 0, 0, 0]
    static let rawBlockFlag: UInt32 = 0x8000_0000

    /// Appends the frame for `raw` to `output`. Uses LZ4 HC at `hcLevel` when given.
    /// `ownCodec`: see `LZ4Blocks`.
    public static func encode(
        _ raw: UnsafeRawBufferPointer, into output: inout [UInt8], hcLevel: Int32? = nil,
        ownCodec: Bool = LZ4Blocks.usesOwnCodec
    ) {
        precondition(raw.count <= Limits.batchRawSizeMax, "payload of \(raw.count) bytes")
        output.append(contentsOf: header)
        var start = 0
        while start < raw.count {
            let length = min(Limits.lz4BlockSizeMax, raw.count - start)
            appendBlock(
                UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]), into: &output,
                hcLevel: hcLevel, ownCodec: ownCodec)
            start += length
        }
        output.append(contentsOf: endMark)
    }

    private static func appendBlock(
        _ block: UnsafeRawBufferPointer, into output: inout [UInt8], hcLevel: Int32?,
        ownCodec: Bool
    ) {
        let sizeFieldPosition = output.count
        output.append(contentsOf: [0, 0, 0, 0])
        let bound = LZ4Blocks.bound(block.count)
        let dataPosition = output.count
        output.append(contentsOf: Array(repeating: 0, count: bound))
        let compressed = output.withUnsafeMutableBytes { buffer -> Int in
            guard let target = buffer.baseAddress else { return 0 }
            return LZ4Blocks.compress(
                block, into: target + dataPosition, capacity: bound, hcLevel: hcLevel,
                ownCodec: ownCodec)
        }
        var sizeField: UInt32
        if compressed > 0 && Int(truncatingIfNeeded: compressed) < block.count {
            output.removeSubrange((dataPosition + Int(truncatingIfNeeded: compressed))...)
            sizeField = UInt32(compressed)
        } else {
            output.removeSubrange(dataPosition...)
            output.append(contentsOf: block)
            sizeField = UInt32(block.count) | rawBlockFlag
        }
        withUnsafeBytes(of: sizeField.littleEndian) { bytes in
            for index in 0..<4 { output[sizeFieldPosition + index] = bytes[index] }
        }
    }

    /// Decodes a whole frame into exactly `rawLength` bytes, appended to `output`.
    ///
    /// Returns nil on any structural problem: wrong header, a block that overruns the input
    /// or decompresses to the wrong size, a missing end mark, trailing bytes, or a total that
    /// differs from `rawLength`. Never reads or writes out of bounds.
    public static func decode(
        _ frame: UnsafeRawBufferPointer, rawLength: Int, into output: inout [UInt8],
        ownCodec: Bool = LZ4Blocks.usesOwnCodec
    ) -> DecodeFailure? {
        guard frame.count >= header.count + endMark.count,
            frame.prefix(header.count).elementsEqual(header)
        else { return .badHeader }
        guard rawLength >= 0, rawLength <= Limits.batchRawSizeMax else { return .badLength }
        let outputStart = output.count
        output.append(contentsOf: Array(repeating: 0, count: rawLength))
        var position = header.count
        var produced = 0
        while true {
            guard position + 4 <= frame.count else { return .truncated }
            let sizeField = frame.loadUnaligned(fromByteOffset: position, as: UInt32.self)
                .littleEndian
            position += 4
            if sizeField == 0 { break }
            let isRaw = sizeField & rawBlockFlag != 0
            let blockLength = Int(truncatingIfNeeded: sizeField & ~rawBlockFlag)
            guard blockLength <= Limits.lz4BlockSizeMax + Limits.lz4BlockSizeMax / 255 + 16,
                position + blockLength <= frame.count
            else { return .truncated }
            let room = min(Limits.lz4BlockSizeMax, rawLength - produced)
            guard room > 0 else { return .badLength }
            let written = output.withUnsafeMutableBytes { buffer -> Int in
                guard let target = buffer.baseAddress, let source = frame.baseAddress else {
                    return -1
                }
                let destination = target + outputStart + produced
                if isRaw {
                    guard blockLength <= room else { return -1 }
                    destination.copyMemory(from: source + position, byteCount: blockLength)
                    return blockLength
                }
                return LZ4Blocks.decompress(
                    UnsafeRawBufferPointer(start: source + position, count: blockLength),
                    into: destination, capacity: room, ownCodec: ownCodec) ?? -1
            }
            guard written > 0 else { return .corruptBlock }
            produced += written
            position += blockLength
        }
        guard position == frame.count else { return .trailingBytes }
        guard produced == rawLength else { return .badLength }
        return nil
    }

    /// Why a frame did not decode.
    public enum DecodeFailure: String, Sendable {
        /// The first seven bytes are not the one header Logbook writes.
        case badHeader = "LZ4 frame header is not the one Logbook writes"
        /// A block size field or block runs past the end of the frame.
        case truncated = "LZ4 frame ends inside a block"
        /// LZ4 rejected a block.
        case corruptBlock = "LZ4 block does not decompress"
        /// The blocks decompress to a different length than the batch header says.
        case badLength = "LZ4 frame decompresses to the wrong length"
        /// Bytes follow the end mark inside the stored length.
        case trailingBytes = "bytes after the LZ4 end mark"
    }
}
