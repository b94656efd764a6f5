import CLZ4Codec

/// Decodes one LZ4 block (the published block format: sequences of a token, literals, a
/// two-byte offset and a match, the last sequence literals only) with the project's own
/// codec (`CLZ4Codec`), for frames where no system liblz4 is at hand (`LZ4Blocks`).
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
    /// written, within `capacity`, may have been overwritten.
    static func decode(
        _ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, start: Int,
        capacity: Int, historyStart: Int
    ) -> Int? {
        guard let input = source.baseAddress, capacity >= 0, historyStart >= 0,
            historyStart <= start
        else { return nil }
        let written = logbook_lz4_decode_block(
            input.assumingMemoryBound(to: UInt8.self), source.count,
            output.assumingMemoryBound(to: UInt8.self), start, capacity, historyStart)
        return written >= 0 ? written : nil
    }
}
