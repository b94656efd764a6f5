/// The log's list of its own segments, so that a segment deleted, emptied or cut from the
/// middle of the log, or a stray swap file, is found at open instead of silently shortening
/// the history. See docs/format/segment.md#the-manifest.
///
/// It holds every sealed segment's base offset and exact size (sealed segments are
/// immutable), the active segment's base offset, and — while a compaction swaps a run in —
/// the swap being made: its range, size and last batch CRC. Segments tile the offsets: a
/// sealed segment ends where the next begins.
///
/// Written durably (temporary file, fsync, rename, directory fsync) after every roll, and
/// before and after every swap. A crash between a change to the directory and the manifest
/// write leaves states recovery recognises: segments newer than the manifest's active one
/// (rolls since), or a recorded swap that finished or did not start.
///
/// ```
/// logbook segment manifest 1
/// sealed <base offset> <size in bytes>        one line per sealed segment, in order
/// active <base offset>
/// swap <base offset> <end offset> <size in bytes> <last batch CRC>    only during a swap
/// crc32c <CRC32C of every byte before this line, hex>
/// ```
struct SegmentManifest: Hashable, Sendable {
    /// A sealed segment as the manifest knows it.
    struct Sealed: Hashable, Sendable {
        var baseOffset: UInt64
        var sizeBytes: Int64
    }

    /// A rewrite being swapped in for the sealed segments whose bases lie in `range`.
    struct PendingSwap: Hashable, Sendable {
        var range: Range<UInt64>
        var sizeBytes: Int64
        var lastBatchCRC: UInt32
    }

    static let fileName = "segments.manifest"
    static let header = "logbook segment manifest 1"

    var sealed: [Sealed]
    var activeBaseOffset: UInt64
    var pendingSwap: PendingSwap?

    /// The manifest of a log's current segments.
    init(sealed: [SegmentIndex], activeBaseOffset: UInt64, pendingSwap: PendingSwap? = nil) {
        self.sealed = sealed.map { Sealed(baseOffset: $0.baseOffset, sizeBytes: $0.segmentSize) }
        self.activeBaseOffset = activeBaseOffset
        self.pendingSwap = pendingSwap
    }

    init(sealed: [Sealed], activeBaseOffset: UInt64, pendingSwap: PendingSwap?) {
        self.sealed = sealed
        self.activeBaseOffset = activeBaseOffset
        self.pendingSwap = pendingSwap
    }

    // MARK: Reading and writing

    /// Reads the manifest of `directory`; nil when there is none (a log written before
    /// manifests, or one whose manifest was removed on purpose). Throws `.corruption` for a
    /// manifest that is damaged or malformed.
    static func read(directory: String, fileSystem: any FileSystem) throws(StorageError) -> Self? {
        let path = directory + "/" + fileName
        guard fileSystem.exists(path) else { return nil }
        let file = try fileSystem.open(path, mode: .read)
        defer { try? file.close() }  // read-only: nothing to lose
        let size = try file.size()
        let sizeMax = Int64(Limits.segmentCountMax) * 64 + 256
        guard size <= sizeMax else {
            throw StorageError(
                .corruption, "manifest of \(size) bytes exceeds \(sizeMax)", path: path)
        }
        let bytes = try file.read(at: 0, count: Int(size))
        switch decode(bytes) {
        case .success(let manifest): return manifest
        case .failure(let reason):
            throw StorageError(
                .corruption,
                "\(reason.message); remove \(fileName) to rebuild it from the segments present "
                    + "(their loss, if any, is then accepted)", path: path)
        }
    }

    /// Replaces the manifest durably.
    func write(directory: String, fileSystem: any FileSystem) throws(StorageError) {
        try fileSystem.replaceFile(directory + "/" + Self.fileName, with: encoded(), durable: true)
    }

    func encoded() -> [UInt8] {
        var text = Self.header + "\n"
        for segment in sealed { text += "sealed \(segment.baseOffset) \(segment.sizeBytes)\n" }
        text += "active \(activeBaseOffset)\n"
        if let swap = pendingSwap {
            text += "swap \(swap.range.lowerBound) \(swap.range.upperBound) \(swap.sizeBytes) "
            text += "\(swap.lastBatchCRC)\n"
        }
        var bytes = Array(text.utf8)
        let crc = CRC32C.checksum(bytes)
        bytes += Array("crc32c \(String(crc, radix: 16))\n".utf8)
        return bytes
    }

    struct DecodeFailure: Error {
        var message: String
    }

    static func decode(_ bytes: [UInt8]) -> Result<Self, DecodeFailure> {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else { return .failure(.init(message: "manifest is cut short")) }
        lines.removeLast()
        guard let crcLine = lines.last, crcLine.hasPrefix("crc32c "),
            let stored = UInt32(crcLine.dropFirst(7), radix: 16)
        else {
            return .failure(.init(message: "manifest has no checksum line"))
        }
        let covered = bytes.count - crcLine.utf8.count - 1
        guard covered >= 0, CRC32C.checksum(Array(bytes[..<covered])) == stored else {
            return .failure(.init(message: "manifest checksum mismatch"))
        }
        lines.removeLast()
        guard lines.first == Substring(header) else {
            return .failure(.init(message: "not a segment manifest (expected '\(header)')"))
        }
        return parse(lines.dropFirst())
    }

    private static func parse(_ lines: ArraySlice<Substring>) -> Result<Self, DecodeFailure> {
        var sealed: [Sealed] = []
        var active: UInt64?
        var swap: PendingSwap?
        for (number, line) in zip(2..., lines) {
            let fields = line.split(separator: " ")
            let numbers = fields.dropFirst().map { UInt64($0) }
            let failure = DecodeFailure(message: "manifest line \(number) is malformed: \(line)")
            guard !numbers.contains(nil) else { return .failure(failure) }
            let values = numbers.compactMap { $0 }
            switch (fields.first, values.count) {
            case ("sealed", 2) where active == nil:
                guard let size = Int64(exactly: values[1]),
                    sealed.last.map({ $0.baseOffset < values[0] }) ?? true
                else { return .failure(failure) }
                sealed.append(Sealed(baseOffset: values[0], sizeBytes: size))
            case ("active", 1) where active == nil:
                guard sealed.last.map({ $0.baseOffset < values[0] }) ?? true else {
                    return .failure(failure)
                }
                active = values[0]
            case ("swap", 4) where active != nil && swap == nil:
                guard values[0] < values[1], let size = Int64(exactly: values[2]),
                    let crc = UInt32(exactly: values[3])
                else { return .failure(failure) }
                swap = PendingSwap(range: values[0]..<values[1], sizeBytes: size, lastBatchCRC: crc)
            default:
                return .failure(failure)
            }
        }
        guard let active else {
            return .failure(.init(message: "manifest names no active segment"))
        }
        return .success(Self(sealed: sealed, activeBaseOffset: active, pendingSwap: swap))
    }
}
