/// The small text files beside a log (`segments.manifest`, `epochs`): a header line, body
/// lines, and a last line `crc32c <hex>` over every byte before it. Readable with `cat`,
/// refused when cut or damaged.
enum ChecksummedLines {
    /// The file's bytes: header, lines, checksum line.
    static func encode(header: String, lines: [String]) -> [UInt8] {
        var bytes = Array((([header] + lines).joined(separator: "\n") + "\n").utf8)
        bytes += Array("crc32c \(String(CRC32C.checksum(bytes), radix: 16))\n".utf8)
        return bytes
    }

    /// The body lines, or why the bytes are not such a file (`kind` names it in the reason).
    static func decode(_ bytes: [UInt8], header: String, kind: String)
        -> Result<ArraySlice<Substring>, DecodeFailure>
    {
        var lines = String(decoding: bytes, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else { return .failure(.init("\(kind) is cut short")) }
        lines.removeLast()
        guard let crcLine = lines.popLast(), crcLine.hasPrefix("crc32c "),
            let stored = UInt32(crcLine.dropFirst(7), radix: 16)
        else { return .failure(.init("\(kind) has no checksum line")) }
        let covered = bytes.count - crcLine.utf8.count - 1
        guard covered >= 0, CRC32C.checksum(Array(bytes[..<covered])) == stored else {
            return .failure(.init("\(kind) checksum mismatch"))
        }
        guard lines.first == Substring(header) else {
            return .failure(.init("not a \(kind) (expected '\(header)')"))
        }
        return .success(lines.dropFirst())
    }

    /// The file's bytes, nil when it does not exist; `.corruption` past `sizeMax`.
    static func read(_ path: String, sizeMax: Int64, fileSystem: any FileSystem)
        throws(StorageError) -> [UInt8]?
    {
        guard fileSystem.exists(path) else { return nil }
        let file = try fileSystem.open(path, mode: .read)
        defer { try? file.close() }  // read-only: nothing to lose
        let size = try file.size()
        guard size <= sizeMax else {
            throw StorageError(.corruption, "file of \(size) bytes exceeds \(sizeMax)", path: path)
        }
        return try file.read(at: 0, count: Int(truncatingIfNeeded: size))
    }

    /// Why bytes are not a checksummed-lines file.
    struct DecodeFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
