/// Decodes one LZ4 block (the published block format: sequences of a token, literals, a
/// two-byte offset and a match, the last sequence literals only), for frames where no
/// system liblz4 is at hand (`LZ4Blocks`).
///
/// Every length is checked against both ends before a byte moves, and every match against
/// the history it may reach, so a hostile block can make it fail but never read or write
/// out of bounds.
enum LZ4BlockDecoder {
    /// Decodes `source` into `output`, writing from `start` at most `capacity` bytes. A
    /// match may reach back to `historyStart` (≤ `start`): the bytes of the frame's earlier
    /// blocks when they are linked, `start` when blocks are independent. Returns the bytes
    /// written; nil for a malformed block (a length past either end, an offset of 0 or
    /// before the history, a block that does not end with literals). Bytes past those
    /// written, within `capacity`, may have been overwritten (`copyWide`).
    static func decode(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, start: Int,
        capacity: Int, historyStart: Int
    ) -> Int? {
        guard let input = source.baseAddress, capacity >= 0, historyStart <= start else {
            return nil
        }
        let inputEnd = source.count
        let outputEnd = start + capacity
        var inputPosition = 0
        var outputPosition = start
        while true {
            guard inputPosition < inputEnd else { return nil }
            let token = input.load(fromByteOffset: inputPosition, as: UInt8.self)
            inputPosition += 1
            guard
                let literalLength = length(
                    Int(truncatingIfNeeded: token >> 4), input, at: &inputPosition, end: inputEnd),
                literalLength <= inputEnd - inputPosition,
                literalLength <= outputEnd - outputPosition
            else { return nil }
            if literalLength + wideCopy <= inputEnd - inputPosition
                && literalLength + wideCopy <= outputEnd - outputPosition
            {
                copyWide(from: input + inputPosition, to: output + outputPosition, literalLength)
            } else {
                (output + outputPosition).copyMemory(
                    from: input + inputPosition, byteCount: literalLength)
            }
            inputPosition += literalLength
            outputPosition += literalLength
            if inputPosition == inputEnd { return outputPosition - start }
            guard inputEnd - inputPosition >= 2 else { return nil }
            // The match offset: two bytes, little-endian.
            let offset = Int(
                truncatingIfNeeded: UInt16(
                    littleEndian: input.loadUnaligned(
                        fromByteOffset: inputPosition, as: UInt16.self)))
            inputPosition += 2
            guard offset > 0, offset <= outputPosition - historyStart,
                let extra = length(
                    Int(truncatingIfNeeded: token & 15), input, at: &inputPosition, end: inputEnd),
                extra + 4 <= outputEnd - outputPosition
            else { return nil }
            let matchLength = extra + 4
            if offset >= wideCopy && matchLength + wideCopy <= outputEnd - outputPosition {
                copyWide(
                    from: output + outputPosition - offset, to: output + outputPosition,
                    matchLength)
            } else {
                copyMatch(in: output, at: outputPosition, offset: offset, length: matchLength)
            }
            outputPosition += matchLength
        }
    }

    /// The bytes `copyWide` moves at a time.
    static let wideCopy = 16

    /// Copies `count` bytes 16 at a time, through at most 15 bytes past both ends: where
    /// there is room for that, one or two wide moves replace a call to `memcpy` for the short
    /// runs most sequences are. A match copied this way is at least 16 bytes back, so each
    /// move reads only bytes already written.
    @inline(__always)
    private static func copyWide(
        from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, _ count: Int
    ) {
        var moved = 0
        repeat {
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: moved, as: SIMD16<UInt8>.self),
                toByteOffset: moved, as: SIMD16<UInt8>.self)
            moved += wideCopy
        } while moved < count
    }

    /// A token's 4-bit length, extended by the bytes after it while they are 255; nil when
    /// the extension runs past `end`. The sum is bounded by 255 times the block's size.
    @inline(__always)
    private static func length(
        _ nibble: Int, _ input: UnsafeRawPointer, at position: inout Int, end: Int
    ) -> Int? {
        guard nibble == 15 else { return nibble }
        var total = 15
        while true {
            guard position < end else { return nil }
            let byte = input.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            total += Int(truncatingIfNeeded: byte)
            if byte != 255 { return total }
        }
    }

    /// Copies `length` bytes from `offset` back to `position`. A match closer than its
    /// length repeats the bytes between: each copy doubles what is there to repeat, so no
    /// copy overlaps its source.
    @inline(__always)
    private static func copyMatch(
        in output: UnsafeMutableRawPointer, at position: Int, offset: Int, length: Int
    ) {
        let source = position - offset
        if offset >= length {
            (output + position).copyMemory(from: output + source, byteCount: length)
            return
        }
        var written = 0
        while written < length {
            let chunk = min(offset + written, length - written)
            (output + position + written).copyMemory(from: output + source, byteCount: chunk)
            written += chunk
        }
    }
}
