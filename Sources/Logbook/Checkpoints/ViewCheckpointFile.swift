import LogbookStorage

/// A view's checkpoint on disk: `view-<name>.checkpoint` beside the segments.
///
/// Little-endian: magic `LBVC`, format 1 (UInt32), the offset the state covers (UInt64: every
/// change below it is applied), the anchor (UInt32: the CRC32C of the log batch holding
/// offset − 1, 0 at offset 0), the view's digest (two UInt64), the state's length (UInt64)
/// and CRC32C (UInt32), then the state. Written to a temporary file, synced and renamed, so
/// a crash leaves the old checkpoint or the new one.
struct ViewCheckpointFile {
    static let magic: [UInt8] = Array("LBVC".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 4 + 4 + 8 + 4 + 16 + 8 + 4

    var offset: UInt64
    var anchor: UInt32
    var digest: StateDigest
    var state: [UInt8]

    /// The file's path for a view (names are made file-safe).
    static func path(directory: String, view name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        return directory + "/view-" + safe + ".checkpoint"
    }

    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.appendLittleEndian(Self.formatVersion)
        bytes.appendLittleEndian(offset)
        bytes.appendLittleEndian(anchor)
        bytes.appendLittleEndian(digest.high)
        bytes.appendLittleEndian(digest.low)
        bytes.appendLittleEndian(UInt64(state.count))
        bytes.appendLittleEndian(state.withUnsafeBytes { CRC32C.checksum($0) })
        bytes.append(contentsOf: state)
        return bytes
    }

    /// Parses a file's bytes, or says why they are not a checkpoint.
    static func decode(_ bytes: [UInt8]) -> Result<ViewCheckpointFile, CheckpointRejection> {
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == magic else {
            return .failure(.init("not a view checkpoint (bad magic or short header)"))
        }
        let (version, offset, anchor, digest, length, crc) = bytes.withUnsafeBytes { buffer in
            var reader = LittleEndianReader(buffer, from: 4)
            return (
                reader.take(UInt32.self), reader.take(UInt64.self), reader.take(UInt32.self),
                StateDigest(high: reader.take(UInt64.self), low: reader.take(UInt64.self)),
                reader.take(UInt64.self), reader.take(UInt32.self)
            )
        }
        guard version == formatVersion else {
            return .failure(.init("checkpoint format \(version), expected \(formatVersion)"))
        }
        guard length == UInt64(bytes.count - headerSize) else {
            return .failure(.init("state length \(length), file holds \(bytes.count - headerSize)"))
        }
        let state = Array(bytes[headerSize...])
        guard state.withUnsafeBytes({ CRC32C.checksum($0) }) == crc else {
            return .failure(.init("state checksum mismatch"))
        }
        return .success(
            ViewCheckpointFile(offset: offset, anchor: anchor, digest: digest, state: state))
    }

    /// Reads the file at `path`; nil when there is none.
    static func read(_ path: String, fileSystem: any FileSystem) -> Result<
        ViewCheckpointFile, CheckpointRejection
    >? {
        guard fileSystem.exists(path) else { return nil }
        do {
            let file = try fileSystem.open(path, mode: .read)
            defer { try? file.close() }
            let size = try file.size()
            guard let count = Int(exactly: size) else {
                return .failure(.init("\(size) bytes do not fit this platform's memory"))
            }
            let bytes = try file.read(at: 0, count: count)
            return decode(bytes)
        } catch {
            return .failure(.init("unreadable: \(error)"))
        }
    }

    /// Writes durably: a temporary file, synced, renamed over the old one.
    func write(_ path: String, fileSystem: any FileSystem) throws(StorageError) {
        try fileSystem.replaceFile(path, with: encoded(), durable: true)
    }
}

/// Why a checkpoint was not used.
struct CheckpointRejection: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
