/// Tunables of a log. Defaults suit a local-first store on an SSD.
public struct LogConfiguration: Sendable {
    /// Roll the active segment once it reaches this many bytes. Default 64 MiB.
    public var segmentSizeMax: Int64 = 64 * 1024 * 1024
    /// Roll the active segment once it is this old, in nanoseconds of the log's clock; nil
    /// never rolls by age. Default nil.
    public var segmentAgeMaxNanoseconds: UInt64? = nil
    /// Write a batch once this many uncompressed record bytes are pending. Default 64 KiB,
    /// LZ4's window: bigger batches barely compress better and delay visibility.
    public var batchSizeTarget: Int = 64 * 1024
    /// One sparse index entry per this many segment bytes. Default 4 KiB.
    public var indexIntervalBytes: Int = 4096
    /// Compress with LZ4 HC at this level instead of fast LZ4 (compaction output). Default nil.
    public var hcLevel: Int32? = nil
    /// Compress a batch that reached `batchSizeTarget` on another thread while the next one
    /// fills, and write it at the next flush (when the next batch fills, on `flush()`,
    /// `sync()`, `close()`, or a cursor made): appends cost less on the appending thread,
    /// and up to two batches, not one, wait in memory between flushes. Default true; false
    /// writes each full batch at once, on the appending thread.
    public var compressesFullBatchesAhead = true
    /// Keep this many bytes of zeros written ahead of the active segment's last batch, so
    /// that a data sync (`fdatasync`) overwrites blocks the file already has instead of
    /// growing it: a file that grows makes every sync also commit its new size to the file
    /// system's journal. On this project's test machine (ext4) that made one writer's
    /// durable writes 1.3–1.8× as fast (docs/benchmarks.md). The zeros are cut off when the
    /// segment is sealed or the log closed; recovery reads a tail of zeros as the segment's
    /// end. nil: the log's owner decides (`Log` writes none; `Logbook` writes 1 MiB ahead
    /// when it syncs for every write, with `.groupCommit` and `.fsyncEachAppend`). 0 writes
    /// none.
    public var zeroFillAheadBytes: Int? = nil
    /// Once this many bytes of the active segment were written since its last sync or
    /// write-back, ask the kernel to start writing them to the device, without waiting
    /// (Linux `sync_file_range`; elsewhere nothing). The next sync of the segment (a roll's,
    /// `sync()`, a group commit's) then has that much less left to write, so `.buffered`
    /// appends no longer stall for a whole segment's bytes when it is sealed. It changes no
    /// durability guarantee: what was not synced is still not promised. Default 1 MiB; 0
    /// never starts write-back early.
    public var writebackAfterBytes: Int = 1024 * 1024
    /// The identity the log must have (`LogIdentity`), when its owner keeps it elsewhere
    /// (the engine keeps it in `logbook.json`): a manifest naming another is refused
    /// (`corruption`), and a manifest created or rebuilt gets this one. nil: the manifest's,
    /// or a new random one for a new log. Default nil.
    public var identity: LogIdentity? = nil
    /// How each epoch's first record marks it (`EpochMarking`); nil logs no marks, and
    /// positions are checked against the `epochs` file alone. The engine sets it.
    public var epochMarking: EpochMarking? = nil

    /// The defaults.
    public init() {}

    /// Checks the values against `Limits`; throws `.invalidArgument` naming the bad one.
    public func validate() throws(StorageError) {
        guard Limits.segmentSizes.contains(segmentSizeMax) else {
            throw StorageError(
                .invalidArgument,
                "segmentSizeMax \(segmentSizeMax) outside \(Limits.segmentSizeMin)...\(Limits.segmentSizeMax)"
            )
        }
        guard batchSizeTarget >= 1, batchSizeTarget <= Limits.batchRawSizeMax else {
            throw StorageError(
                .invalidArgument,
                "batchSizeTarget \(batchSizeTarget) outside 1...\(Limits.batchRawSizeMax)")
        }
        if let zeroFillAheadBytes {
            guard (0...Limits.zeroFillAheadBytesMax).contains(zeroFillAheadBytes) else {
                throw StorageError(
                    .invalidArgument,
                    "zeroFillAheadBytes \(zeroFillAheadBytes) outside 0...\(Limits.zeroFillAheadBytesMax)"
                )
            }
        }
        guard (0...Limits.segmentSizeMax).contains(Int64(writebackAfterBytes)) else {
            throw StorageError(
                .invalidArgument,
                "writebackAfterBytes \(writebackAfterBytes) outside 0...\(Limits.segmentSizeMax)")
        }
        guard indexIntervalBytes >= 1 else {
            throw StorageError(.invalidArgument, "indexIntervalBytes must be positive")
        }
    }
}

/// What a log's clock must do: tell the time, for rolling segments by age.
public protocol LogClock: Sendable {
    /// Nanoseconds since an arbitrary fixed point; never decreasing.
    func nowNanoseconds() -> UInt64
}

/// What recovery found and did when the log was opened.
public struct RecoveryReport: Hashable, Sendable, CustomStringConvertible {
    /// The segment whose tail was cut, if any.
    public var truncatedSegment: String?
    /// The byte position the segment was cut at.
    public var truncatedAtByte: Int64 = 0
    /// How many bytes were removed.
    public var truncatedBytes: Int64 = 0
    /// The first offset of the torn batch, when its header was readable.
    public var firstLostOffset: UInt64?
    /// Why the tail was invalid.
    public var reason: String?
    /// Index files that were missing or stale and were rebuilt.
    public var rebuiltIndexes: [String] = []
    /// Leftover temporary files that were removed.
    public var removedTemporaryFiles: [String] = []
    /// What was done about interrupted segment swaps (compaction), including swap files
    /// set aside because they did not check out.
    public var swapActions: [String] = []
    /// What was done to the segment manifest (created for a log that had none).
    public var manifestActions: [String] = []
    /// Epochs forgotten because they start past the log's end (`LogEpochs`); in memory
    /// until the next epoch is written.
    public var epochActions: [String] = []
    /// True for a read-only open: the torn tail and indexes above were found and read
    /// around, not repaired on disk.
    public var isReadOnly = false

    /// True when recovery cut nothing, found no interrupted swap and forgot no epoch.
    public var isClean: Bool {
        truncatedSegment == nil && swapActions.isEmpty && epochActions.isEmpty
    }

    /// One line per thing recovery did.
    public var description: String {
        var lines: [String] = []
        if let truncatedSegment {
            var line =
                isReadOnly
                ? "torn tail of \(truncatedBytes) bytes in \(truncatedSegment) at byte "
                    + "\(truncatedAtByte), read around, not cut (read-only)"
                : "truncated \(truncatedBytes) bytes of \(truncatedSegment) at byte \(truncatedAtByte)"
            if let firstLostOffset { line += " (torn batch from offset \(firstLostOffset))" }
            if let reason { line += ": \(reason)" }
            lines.append(line)
        }
        if !rebuiltIndexes.isEmpty {
            lines.append(
                (isReadOnly ? "indexes built in memory: " : "rebuilt indexes: ")
                    + rebuiltIndexes.joined(separator: ", "))
        }
        lines.append(contentsOf: swapActions)
        lines.append(contentsOf: manifestActions)
        lines.append(contentsOf: epochActions)
        if !removedTemporaryFiles.isEmpty {
            lines.append(
                "removed temporary files: \(removedTemporaryFiles.joined(separator: ", "))")
        }
        return lines.isEmpty ? "clean" : lines.joined(separator: "\n")
    }
}
