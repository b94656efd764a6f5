/// The log's epochs: each writable open that appends starts a new one, with a random id and
/// the offset of its first record. A follower states the position it holds as the offset it
/// reached and the epoch of the last record it took; this log holds that position only if
/// the record at that offset was written in that epoch here (after Kafka's leader epochs).
///
/// A log restored from an older copy has the copy's epochs; its next writer starts a new one
/// where the copy ends, so a follower that took records the copy lost names an epoch that
/// ends earlier here, or one unknown here: a divergence, never a silent gap.
///
/// File `epochs`, text, CRC32C-checked, replaced durably (before the first record of the
/// epoch is appended):
/// ```
/// logbook epochs 1
/// <id> <start offset>        one line per epoch, oldest first, at most `countMax`
/// crc32c <hex CRC32C of every byte before this line>
/// ```
struct LogEpochs: Hashable, Sendable {
    static let fileName = "epochs"
    static let header = "logbook epochs 1"
    /// Epochs kept; older ones are dropped, and a follower positioned in one is told it
    /// diverged (it then resyncs from state: slower, never wrong).
    static let countMax = 1024

    var epochs: [LogEpoch] = []

    /// The id of the epoch that wrote `offset`: the last one starting at or before it, or 0
    /// for records older than every epoch kept (logs written before epochs existed).
    func epochId(holding offset: UInt64) -> UInt64 {
        epochs.last { $0.startOffset <= offset }?.id ?? 0
    }

    /// The kept epoch with this id.
    func epoch(id: UInt64) -> LogEpoch? {
        epochs.first { $0.id == id }
    }

    /// True when the record at `offset` (below `logEnd`) was written in epoch `id` here.
    /// Epoch 0 stands for the records before the first kept epoch.
    func holds(offset: UInt64, epochId id: UInt64, logEnd: UInt64) -> Bool {
        guard offset < logEnd else { return false }
        if id == 0 { return offset < (epochs.first?.startOffset ?? logEnd) }
        guard let position = epochs.firstIndex(where: { $0.id == id }) else { return false }
        let end = position + 1 < epochs.count ? epochs[position + 1].startOffset : logEnd
        return epochs[position].startOffset <= offset && offset < end
    }

    /// Forgets the epochs that start past `logEnd` and says what it forgot, one line each.
    /// Such an epoch names records this log does not hold: its file outlived them (a power
    /// cut took records written before the epoch began but never synced) or came from a
    /// longer copy of the log. Kept, it would make the next epoch start before the last (a
    /// trap), and a follower positioned in it would not be told it diverged.
    mutating func forgetEpochs(startingPast logEnd: UInt64) -> [String] {
        let past = epochs.filter { $0.startOffset > logEnd }
        epochs.removeAll { $0.startOffset > logEnd }
        return past.map {
            "forgot epoch \($0.id) starting at offset \($0.startOffset), past the log's end "
                + "\(logEnd)"
        }
    }

    /// Adds an epoch starting at `offset`, dropping the oldest past `countMax`.
    mutating func begin(id: UInt64, at offset: UInt64) {
        precondition(epochs.last.map { $0.startOffset <= offset } ?? true, "epoch before the last")
        epochs.removeAll { $0.startOffset == offset }  // an epoch that wrote nothing
        epochs.append(LogEpoch(id: id, startOffset: offset))
        if epochs.count > Self.countMax { epochs.removeFirst(epochs.count - Self.countMax) }
    }

    // MARK: The file

    static func read(directory: String, fileSystem: any FileSystem) throws(StorageError) -> Self {
        let path = directory + "/" + fileName
        guard
            let bytes = try ChecksummedLines.read(
                path, sizeMax: Int64(countMax + 3) * 48, fileSystem: fileSystem)
        else { return LogEpochs() }
        guard let epochs = decode(bytes) else {
            throw StorageError(
                .corruption,
                "the epochs file is damaged; remove it to start afresh (followers then resync "
                    + "from state once)", path: path)
        }
        return epochs
    }

    func write(directory: String, fileSystem: any FileSystem) throws(StorageError) {
        let bytes = ChecksummedLines.encode(
            header: Self.header, lines: epochs.map { "\($0.id) \($0.startOffset)" })
        try fileSystem.replaceFile(directory + "/" + Self.fileName, with: bytes, durable: true)
    }

    static func decode(_ bytes: [UInt8]) -> Self? {
        guard
            case .success(let lines) = ChecksummedLines.decode(
                bytes, header: header, kind: "epochs")
        else { return nil }
        var result = LogEpochs()
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let id = UInt64(fields[0]), id != 0,
                let start = UInt64(fields[1]),
                result.epochs.last.map({ $0.startOffset < start }) ?? true
            else { return nil }
            result.epochs.append(LogEpoch(id: id, startOffset: start))
        }
        return result
    }
}

/// One epoch of a log: the records from `startOffset` up to the next epoch's start.
public struct LogEpoch: Hashable, Sendable {
    /// Random, never 0 (0 names the records older than every epoch kept).
    public var id: UInt64
    /// The offset of the epoch's first record.
    public var startOffset: UInt64
}
