/// The log's list of its own segments, so that a segment deleted, emptied or cut from the
/// middle of the log, or a stray swap file, is found at open instead of silently shortening
/// the history. See docs/format/segment.md#the-manifest.
///
/// It holds the log's identity and history (`LogIdentity`, `LogHistory`), every sealed
/// segment's base offset, exact size and last batch CRC (sealed segments are immutable, and
/// the CRC chain makes the last CRC stand for every byte), the active segment's base offset,
/// and — while a compaction swaps a run in — the swap being made: its range, size and last
/// batch CRC. Segments tile the offsets: a sealed segment ends where the next begins.
///
/// Written durably (temporary file, fsync, rename, directory fsync) after every roll, and
/// before and after every swap. A crash between a change to the directory and the manifest
/// write leaves states recovery recognises: segments newer than the manifest's active one
/// (rolls since), or a recorded swap that finished or did not start.
///
/// ```
/// logbook segment manifest 2
/// log <identity, 32 hex digits>
/// history <id> <start offset>
/// chain <seeded from> <checked from>    where segments chain from a seed (SegmentChain)
/// sealed <base offset> <size in bytes> <last batch CRC>   one line per sealed segment, in order
/// active <base offset>
/// swap <base offset> <end offset> <size in bytes> <last batch CRC>    only during a swap
/// crc32c <CRC32C of every byte before this line, hex>
/// ```
/// Version 1 (no `log` or `history` line, no CRC on `sealed` lines) is read; the next
/// writable open writes version 2, with a new identity (or the one the opener expects) and
/// a new history. A version 2 manifest without a `chain` line (written before seeding) has
/// its chain inferred from the segments (`SegmentChain.inferred`).
struct SegmentManifest: Hashable, Sendable {
    /// A sealed segment as the manifest knows it.
    struct Sealed: Hashable, Sendable {
        var baseOffset: UInt64
        var sizeBytes: Int64
        /// Nil in a version 1 manifest.
        var lastBatchCRC: UInt32?
    }

    /// A rewrite being swapped in for the sealed segments whose bases lie in `range`.
    struct PendingSwap: Hashable, Sendable {
        var range: Range<UInt64>
        var sizeBytes: Int64
        var lastBatchCRC: UInt32
    }

    static let fileName = "segments.manifest"
    static let header = "logbook segment manifest 2"
    static let versionOneHeader = "logbook segment manifest 1"

    /// Nil in a version 1 manifest.
    var identity: LogIdentity?
    var history: LogHistory?
    /// The `chain` line: where segments start chaining from their seed, and from where their
    /// first batch is checked (`SegmentChain`).
    struct Seeding: Hashable, Sendable {
        var seededFrom: UInt64
        var checkedFrom: UInt64
    }

    /// Nil in a manifest written before seeding.
    var seeding: Seeding?
    var sealed: [Sealed]
    var activeBaseOffset: UInt64
    var pendingSwap: PendingSwap?

    /// The manifest of a log's current segments.
    init(
        chain: SegmentChain, history: LogHistory, sealed: [SegmentIndex],
        activeBaseOffset: UInt64, pendingSwap: PendingSwap? = nil
    ) {
        self.identity = chain.identity
        self.history = history
        self.seeding = Seeding(seededFrom: chain.seededFrom, checkedFrom: chain.checkedFrom)
        self.sealed = sealed.map {
            Sealed(
                baseOffset: $0.baseOffset, sizeBytes: $0.segmentSize, lastBatchCRC: $0.lastBatchCRC)
        }
        self.activeBaseOffset = activeBaseOffset
        self.pendingSwap = pendingSwap
    }

    init(
        identity: LogIdentity?, history: LogHistory?, seeding: Seeding?, sealed: [Sealed],
        activeBaseOffset: UInt64, pendingSwap: PendingSwap?
    ) {
        self.identity = identity
        self.history = history
        self.seeding = seeding
        self.sealed = sealed
        self.activeBaseOffset = activeBaseOffset
        self.pendingSwap = pendingSwap
    }

    /// Where the log's segments chain from; nil when the manifest does not say (written
    /// before seeding, or version 1).
    var chain: SegmentChain? {
        guard let identity, let seeding else { return nil }
        return SegmentChain(
            identity: identity, seededFrom: seeding.seededFrom, checkedFrom: seeding.checkedFrom)
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

    /// Version 2 bytes; a manifest read from version 1 gets its identity and history first.
    func encoded() -> [UInt8] {
        precondition(identity != nil && history != nil, "a manifest written without its log")
        var lines: [String] = []
        if let identity, let history {
            lines.append("log \(identity.hex)")
            lines.append("history \(history.id) \(history.startOffset)")
        }
        if let seeding { lines.append("chain \(seeding.seededFrom) \(seeding.checkedFrom)") }
        for segment in sealed {
            precondition(segment.lastBatchCRC != nil, "a sealed segment written without its CRC")
            lines.append(
                "sealed \(segment.baseOffset) \(segment.sizeBytes) \(segment.lastBatchCRC ?? 0)")
        }
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
        if bytes.starts(with: Array((versionOneHeader + "\n").utf8)) {
            return ChecksummedLines.decode(bytes, header: versionOneHeader, kind: "manifest")
                .flatMap { parse($0, version: 1) }
        }
        return ChecksummedLines.decode(bytes, header: header, kind: "manifest")
            .flatMap { parse($0, version: 2) }
    }

    private static func parse(_ lines: ArraySlice<Substring>, version: Int) -> Result<
        Self, DecodeFailure
    > {
        var identity: LogIdentity?
        var history: LogHistory?
        var seeding: Seeding?
        var sealed: [Sealed] = []
        var active: UInt64?
        var swap: PendingSwap?
        for (number, line) in zip(2..., lines) {
            let fields = line.split(separator: " ")
            let failure = DecodeFailure("manifest line \(number) is malformed: \(line)")
            if version == 2, number == 2 {
                guard fields.count == 2, fields[0] == "log", let read = LogIdentity(hex: fields[1])
                else { return .failure(failure) }
                identity = read
                continue
            }
            if version == 2, number == 3 {
                guard fields.count == 3, fields[0] == "history", let id = UInt64(fields[1]),
                    id != 0, let start = UInt64(fields[2])
                else { return .failure(failure) }
                history = LogHistory(id: id, startOffset: start)
                continue
            }
            let numbers = fields.dropFirst().map { UInt64($0) }
            guard !numbers.contains(nil) else { return .failure(failure) }
            let values = numbers.compactMap { $0 }
            switch (fields.first, values.count) {
            case ("chain", 2) where version == 2 && number == 4 && values[1] <= values[0]:
                seeding = Seeding(seededFrom: values[0], checkedFrom: values[1])
            case ("sealed", version == 1 ? 2 : 3) where active == nil:
                let crc = version == 1 ? nil : UInt32(exactly: values[2])
                guard let size = Int64(exactly: values[1]), version == 1 || crc != nil,
                    sealed.last.map({ $0.baseOffset < values[0] }) ?? true
                else { return .failure(failure) }
                sealed.append(Sealed(baseOffset: values[0], sizeBytes: size, lastBatchCRC: crc))
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
        guard version == 1 || (identity != nil && history != nil) else {
            return .failure(.init("manifest names no log and history"))
        }
        return .success(
            Self(
                identity: identity, history: history, seeding: seeding, sealed: sealed,
                activeBaseOffset: active, pendingSwap: swap))
    }
}
