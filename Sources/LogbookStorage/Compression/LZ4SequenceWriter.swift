/// Writes LZ4 sequences (the published block format) into a buffer of fixed capacity,
/// for both of the project's compressors (`LZ4BlockEncoder`).
struct LZ4SequenceWriter {
    let output: UnsafeMutableRawPointer
    let capacity: Int
    private(set) var position = 0
    /// False once a sequence did not fit: the block is then stored raw.
    private(set) var fits = true

    init(output: UnsafeMutableRawPointer, capacity: Int) {
        self.output = output
        self.capacity = capacity
    }

    /// One sequence: the literals `source[literalStart..<literalEnd]`, then a match of
    /// `matchLength` (≥ 4) bytes `offset` (1...65535) back; or, with `offset` 0, the last
    /// sequence, literals only.
    @inline(__always)
    mutating func write(
        literalsFrom source: UnsafeRawPointer, _ literalStart: Int, _ literalEnd: Int,
        offset: Int = 0, matchLength: Int = 0
    ) {
        let literalLength = literalEnd - literalStart
        let matchCode = offset == 0 ? 0 : matchLength - 4
        let needed =
            1 + extensionSize(literalLength) + literalLength
            + (offset == 0 ? 0 : 2 + extensionSize(matchCode))
        guard fits, needed <= capacity - position else {
            fits = false
            return
        }
        let token = UInt8(min(literalLength, 15) << 4 | min(matchCode, 15))
        output.storeBytes(of: token, toByteOffset: position, as: UInt8.self)
        position += 1
        writeExtension(literalLength)
        (output + position).copyMemory(from: source + literalStart, byteCount: literalLength)
        position += literalLength
        guard offset != 0 else { return }
        output.storeBytes(
            of: UInt8(truncatingIfNeeded: offset), toByteOffset: position, as: UInt8.self)
        output.storeBytes(
            of: UInt8(truncatingIfNeeded: offset >> 8), toByteOffset: position + 1, as: UInt8.self)
        position += 2
        writeExtension(matchCode)
    }

    /// The bytes after the token that a length of 15 or more takes.
    @inline(__always)
    private func extensionSize(_ length: Int) -> Int {
        length < 15 ? 0 : (length - 15) / 255 + 1
    }

    @inline(__always)
    private mutating func writeExtension(_ length: Int) {
        guard length >= 15 else { return }
        var rest = length - 15
        while rest >= 255 {
            output.storeBytes(of: UInt8(255), toByteOffset: position, as: UInt8.self)
            position += 1
            rest -= 255
        }
        output.storeBytes(of: UInt8(rest), toByteOffset: position, as: UInt8.self)
        position += 1
    }
}
