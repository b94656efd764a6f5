/// Fixed-width little-endian fields, for the headers of the files beside the log (view
/// checkpoints, replica snapshots).
extension Array where Element == UInt8 {
    /// Appends `number`'s bytes, least significant first.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ number: T) {
        Swift.withUnsafeBytes(of: number.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads fixed-width little-endian fields one after another. The caller checks the length
/// first (each header has a fixed size); a read past the end is a programming error.
struct LittleEndianReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, from position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    mutating func take<T: FixedWidthInteger>(_: T.Type) -> T {
        let value = bytes.loadUnaligned(fromByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
        return T(littleEndian: value)
    }
}
