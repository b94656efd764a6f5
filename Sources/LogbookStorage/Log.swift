/// An append-only log of opaque records in a directory of segment files.
///
/// Records get consecutive offsets from 0. They are collected into a pending batch and
/// written when the batch reaches `batchSizeTarget`, on `flush()`, `sync()` and `close()`.
/// Only the last (active) segment is written or truncated; sealed segments are immutable.
/// See docs/format/segment.md for the bytes and docs/storage.md for the guarantees.
///
/// Durability: `append` only buffers; `flush` hands bytes to the OS; `sync` also
/// `fdatasync`s; rolling a segment syncs the sealed file and the directory.
///
/// Isolation: not thread-safe. `Logbook` serializes access; readers made by `makeCursor`
/// use their own file handles and may run on other threads.
///
/// Invariants: `durableOffset <= flushedOffset <= nextOffset`; the active segment's size is
/// the end of its last valid batch; sealed segments are ordered with rising offsets.
public final class Log {
    /// The log's directory.
    public let directory: String
    /// The file system; for a log opened read-only, the `PinnedFileSystem` holding the files
    /// it read (a refresh replaces it).
    var fileSystem: any FileSystem
    let configuration: LogConfiguration
    let clock: (any LogClock)?
    /// Sealed segments, oldest first.
    var sealed: [SegmentIndex]
    var active: ActiveSegment
    // What every append reads: the pending batch and the next offset (see `AppendRun` for
    // why they are one value), whether the log is closed, whether this open's epoch has
    // begun. Unchecked for exclusivity in release builds
    // (docs/decisions/0010-exclusivity-checks-in-release.md).
    #if LOGBOOK_VERIFY
        var appending: AppendRun
        var isClosed = false
        var hasBegunEpoch = false
    #else
        @exclusivity(unchecked) var appending: AppendRun
        @exclusivity(unchecked) var isClosed = false
        @exclusivity(unchecked) var hasBegunEpoch = false
    #endif
    /// The full batch before the pending one, compressed on `compressor`'s thread; written
    /// first by the next flush.
    var compressing: BatchEncoder?
    /// Started at the first full batch (`LogConfiguration.compressesFullBatchesAhead`).
    var compressor: BatchCompressor?
    /// An emptied batch whose buffer the next pending batch reuses.
    var spareBatch: BatchEncoder?
    /// Opened by `openReadOnly`: every write throws `.readOnly`.
    public let isReadOnly: Bool
    /// The log's epochs; this open starts one at its first append.
    var epochs: LogEpochs
    /// Epochs whose mark was found at their start (`EpochMarking`), or logged by this open.
    var markedEpochs: Set<UInt64> = []
    /// Which log this is and where its segments' CRC chains start (from its manifest; see
    /// `LogIdentity`, `SegmentChain`).
    public internal(set) var chain: SegmentChain
    /// Which log this is (from its manifest; see `LogIdentity`).
    public var identity: LogIdentity { chain.identity }
    /// The history the log replays to; a tombstone GC begins a new one (`beginHistory`).
    public internal(set) var history: LogHistory
    /// The directory's lock, held until `close` by a writer (a reader takes none).
    var lease: (any DirectoryLease)?
    /// Where a writer publishes its durable offset for readers (`DurableMark`).
    var durableMark: DurableMarkWriter?
    let metrics = StorageMetrics()

    /// What recovery did at open.
    public let recovery: RecoveryReport
    /// The offset the next appended record gets.
    public var nextOffset: UInt64 { appending.nextOffset }
    /// Every record below this offset has been written to a segment file.
    public internal(set) var flushedOffset: UInt64
    /// Every record below this offset has been `fdatasync`ed. A writer publishes each rise
    /// for readers in other processes (`DurableMark`).
    public internal(set) var durableOffset: UInt64 {
        didSet { if durableOffset > oldValue { durableMark?.publish(durableOffset) } }
    }

    /// The segment being written.
    struct ActiveSegment {
        var file: any StorageFile
        var index: SegmentIndex
        var lastBatchCRC: UInt32
        var createdAtNanoseconds: UInt64
        /// Where the file's bytes end: at `size`, or past it when zeros were written ahead
        /// (`LogConfiguration.zeroFillAheadBytes`) or recovery kept a tail of zeros.
        var fileEnd: Int64 = 0
        /// Set when writing zeros ahead failed: this segment goes on without them.
        var zeroFillStopped = false
        /// When to start the write-back of its bytes (`LogConfiguration.writebackAfterBytes`).
        var writeback = WritebackSchedule()
        var size: Int64 { index.segmentSize }
    }

    init(
        directory: String, fileSystem: any FileSystem, configuration: LogConfiguration,
        clock: (any LogClock)?, sealed: [SegmentIndex], active: ActiveSegment,
        recovery: RecoveryReport, epochs: LogEpochs, chain: SegmentChain, history: LogHistory,
        isReadOnly: Bool = false
    ) {
        self.isReadOnly = isReadOnly
        self.chain = chain
        self.history = history
        var epochs = epochs
        var recovery = recovery
        recovery.epochActions = epochs.forgetEpochs(startingPast: active.index.nextOffset)
        self.epochs = epochs
        self.directory = directory
        self.fileSystem = fileSystem
        self.configuration = configuration
        self.clock = clock
        self.sealed = sealed
        self.active = active
        self.active.writeback = WritebackSchedule(start: active.size)
        self.recovery = recovery
        appending = AppendRun(nextOffset: active.index.nextOffset)
        flushedOffset = active.index.nextOffset
        durableOffset = active.index.nextOffset
    }

    /// The first offset the log still holds (0 until old segments are removed).
    public var startOffset: UInt64 {
        sealed.first?.baseOffset ?? active.index.baseOffset
    }

    /// The number of segment files, active included.
    public var segmentCount: Int { sealed.count + 1 }

    /// The first offset of the active segment (the segment appends go to).
    public var activeBaseOffset: UInt64 { active.index.baseOffset }

    /// Total bytes of all segment files.
    public var sizeBytes: Int64 {
        sealed.reduce(active.size) { $0 + $1.segmentSize }
    }

    /// The id of the epoch that wrote the record at `offset` (0: older than every epoch
    /// kept); see `LogEpochs`.
    public func epochId(holding offset: UInt64) -> UInt64 {
        epochs.epochId(holding: offset)
    }

    /// True when this log holds the position a follower states: the record at `offset`
    /// exists here, below `end`, and was written in epoch `epochId`. With
    /// `LogConfiguration.epochMarking`, an epoch the `epochs` file names as marked is
    /// believed only once its mark is found at its start (one batch read, then
    /// remembered); a read that fails counts as not held (the follower resyncs).
    public func holds(offset: UInt64, epochId: UInt64, below end: UInt64) -> Bool {
        guard epochs.holds(offset: offset, epochId: epochId, logEnd: min(end, nextOffset))
        else { return false }
        guard let marking = configuration.epochMarking, epochId != 0,
            !markedEpochs.contains(epochId), let epoch = epochs.epoch(id: epochId)
        else { return true }
        guard (try? markFound(of: epoch, marking)) == true else { return false }
        markedEpochs.insert(epochId)
        return true
    }

    /// Whether the record at `epoch`'s start is its mark. The start lies below the durable
    /// offset the position was checked against, so what is flushed holds it: the check
    /// writes nothing (`makeCursor` would write the pending batch).
    func markFound(of epoch: LogEpoch, _ marking: EpochMarking) throws(StorageError) -> Bool {
        guard epoch.startOffset >= startOffset, epoch.startOffset < flushedOffset else {
            return false
        }
        let cursor = LogCursor(
            fileSystem: fileSystem, spans: spans(from: epoch.startOffset),
            startOffset: epoch.startOffset, endOffset: flushedOffset)
        var found = false
        guard try cursor.next() else { return false }
        cursor.forEachRecord { offset, record in
            if offset == epoch.startOffset { found = marking.epochId(record) == epoch.id }
        }
        return found
    }

    /// Called before the first append of this open: records a new epoch durably, then
    /// logs its mark (`LogConfiguration.epochMarking`) as its first record, with `version`.
    func beginEpoch(version: UInt64) throws(StorageError) {
        var next = epochs
        let id = UInt64.random(in: 1...UInt64.max)
        next.begin(id: id, at: nextOffset)
        try next.write(directory: directory, fileSystem: fileSystem)
        epochs = next
        hasBegunEpoch = true
        guard let marking = configuration.epochMarking else { return }
        try append(marking.record(id, version), version: version)
        markedEpochs.insert(id)
    }

    /// Throws `.readOnly` when the log was opened read-only.
    func requireWritable(_ operation: String) throws(StorageError) {
        guard isReadOnly else { return }
        throw StorageError(.readOnly, "\(operation) on a log opened read-only", path: directory)
    }

    /// The path of the segment file that starts at `baseOffset`.
    func path(ofSegment baseOffset: UInt64) -> String {
        directory + "/" + SegmentFileName.segment(baseOffset: baseOffset)
    }

    /// Closes the log: writes the pending batch, syncs, closes the active file (a read-only
    /// log only closes). Idempotent.
    public func close() throws(StorageError) {
        if isClosed { return }
        // The lock goes even when the last sync fails: the process may open the log again
        // to recover, and nothing of this open writes any more.
        defer { lease?.release() }
        if !isReadOnly {
            try sync()
            if try cutPastLastBatch() { try active.file.sync() }
        }
        isClosed = true
        compressor?.stop()
        durableMark?.close()
        try active.file.close()
    }

    /// Checks the invariants in the type's documentation.
    public func checkInvariants() {
        precondition(
            durableOffset <= flushedOffset, "durable \(durableOffset) > flushed \(flushedOffset)")
        precondition(flushedOffset <= nextOffset, "flushed \(flushedOffset) > next \(nextOffset)")
        precondition(
            flushedOffset == active.index.nextOffset,
            "flushed offset \(flushedOffset), active segment ends at \(active.index.nextOffset)")
        let unwritten = !appending.pending.isEmpty || compressing != nil
        precondition(
            unwritten == (flushedOffset < nextOffset),
            "a batch unwritten: \(unwritten), flushed \(flushedOffset), next \(nextOffset)")
        var previousNext: UInt64 = 0
        for segment in sealed + [active.index] {
            precondition(
                segment.baseOffset >= previousNext,
                "segment \(segment.baseOffset) overlaps \(previousNext)")
            previousNext = segment.nextOffset
        }
    }

    deinit {
        // A log dropped without close() keeps its OS-cached writes; the descriptor must not
        // leak. Nothing to report to: the error is dropped on purpose.
        compressor?.stop()
        if !isClosed { try? active.file.close() }
    }
}
