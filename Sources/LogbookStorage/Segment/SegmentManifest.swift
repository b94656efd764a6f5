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
        guard
            let bytes = try ChecksummedLines.read(
                path, sizeMax: Int64(Limits.segmentCountMax) * 64 + 256, fileSystem: fileSystem)
        else { return nil }
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
        var lines = sealed.map { "sealed \($0.baseOffset) \($0.sizeBytes)" }
        lines.append("active \(activeBaseOffset)")
        if let swap = pendingSwap {
            lines.append(
                "swap \(swap.range.lowerBound) \(swap.range.upperBound) \(swap.sizeBytes) "
                    + "\(swap.lastBatchCRC)")
        }
        return ChecksummedLines.encode(header: Self.header, lines: lines)
    }

    typealias DecodeFailure = ChecksummedLines.DecodeFailure

    static func decode(_ bytes: [UInt8]) -> Result<Self, DecodeFailure> {
        ChecksummedLines.decode(bytes, header: header, kind: "manifest").flatMap(parse)
    }

    private static func parse(_ lines: ArraySlice<Substring>) -> Result<Self, DecodeFailure> {
        var sealed: [Sealed] = []
        var active: UInt64?
        var swap: PendingSwap?
        for (number, line) in zip(2..., lines) {
            let fields = line.split(separator: " ")
            let numbers = fields.dropFirst().map { UInt64($0) }
            let failure = DecodeFailure("manifest line \(number) is malformed: \(line)")
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
            return .failure(.init("manifest names no active segment"))
        }
        return .success(Self(sealed: sealed, activeBaseOffset: active, pendingSwap: swap))
    }
}
