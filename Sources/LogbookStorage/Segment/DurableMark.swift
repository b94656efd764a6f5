/// The writer's durable end, published for readers in other processes: `DIR/durable`, 32
/// bytes the writer overwrites in place after each sync that moves its durable offset.
///
///     0  u32 magic "LGDM"        4  u64 identity.high   12  u64 identity.low
///    20  u64 durable offset     28  u32 CRC32C of bytes 0..<28
///
/// A reader beside a live writer serves the log up to this offset, never the batches the
/// writer has written but not yet synced (a power cut could still take them). The file is
/// a hint, never synced itself: it is written only after the sync it reports, so whatever
/// of it reaches the disk names durable records. One naming another log, or damaged, or
/// missing (a writer of an earlier build), counts as no mark: such a reader serves the
/// sealed segments only, which every roll syncs.
enum DurableMark {
    static let fileName = "durable"
    static let size = 32
    static let magic: UInt32 = 0x4D44_474C  // "LGDM" read little-endian

    /// The mark's bytes.
    static func encode(identity: LogIdentity, offset: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        bytes.appendLittleEndian(magic)
        bytes.appendLittleEndian(identity.high)
        bytes.appendLittleEndian(identity.low)
        bytes.appendLittleEndian(offset)
        bytes.appendLittleEndian(CRC32C.checksum(bytes))
        return bytes
    }

    /// The offset a mark of `identity`'s log holds; nil for anything else.
    static func decode(_ bytes: [UInt8], identity: LogIdentity) -> UInt64? {
        guard bytes.count == size else { return nil }
        return bytes.withUnsafeBytes { raw -> UInt64? in
            func u64(_ at: Int) -> UInt64 {
                raw.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
            }
            let crc = raw.loadUnaligned(fromByteOffset: 28, as: UInt32.self).littleEndian
            guard raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian == magic,
                CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<28])) == crc,
                u64(4) == identity.high, u64(12) == identity.low
            else { return nil }
            return u64(20)
        }
    }

    /// The mark in `directory`, read through `fileSystem`; nil when there is none to trust.
    static func read(directory: String, identity: LogIdentity, fileSystem: any FileSystem)
        -> UInt64?
    {
        let path = directory + "/" + fileName
        guard fileSystem.exists(path), let file = try? fileSystem.open(path, mode: .read) else {
            return nil
        }
        defer { try? file.close() }  // read-only: nothing to lose
        guard let bytes = try? file.read(at: 0, count: size) else { return nil }
        return decode(bytes, identity: identity)
    }
}

/// The writer's side of `DurableMark`: the file, open for as long as the log is.
final class DurableMarkWriter {
    private let file: any StorageFile
    private let identity: LogIdentity

    private init(file: any StorageFile, identity: LogIdentity) {
        self.file = file
        self.identity = identity
    }

    /// Opens (or creates) the mark of the log in `directory`; nil when that fails (a full
    /// disk, say): the log goes on, and readers beside it serve only its sealed segments.
    static func open(directory: String, identity: LogIdentity, fileSystem: any FileSystem)
        -> DurableMarkWriter?
    {
        let path = directory + "/" + DurableMark.fileName
        let file =
            fileSystem.exists(path)
            ? try? fileSystem.open(path, mode: .readWrite)
            : try? fileSystem.open(path, mode: .createNew)
        return file.map { DurableMarkWriter(file: $0, identity: identity) }
    }

    /// Overwrites the mark with `offset`. A failed write is let go: the mark only lags.
    func publish(_ offset: UInt64) {
        try? file.write(DurableMark.encode(identity: identity, offset: offset), at: 0)
    }

    /// Closes the file.
    func close() {
        try? file.close()
    }
}
