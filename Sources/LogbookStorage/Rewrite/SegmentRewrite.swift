import Foundation

/// What a rewrite does with one record of the segments it reads.
public enum RecordRewrite: Sendable {
    /// Keep the record as it is; `version` is its caller version (records do not store it).
    case keep(version: UInt64)
    /// Keep the offset but store these bytes with this version instead.
    case replace([UInt8], version: UInt64)
    /// Leave the offset empty (a hole).
    case drop
}

/// Consecutive sealed segments chosen for a rewrite, as they were when chosen.
public struct SegmentRun: Hashable, Sendable {
    /// The segments, oldest first.
    public var segments: [SegmentIndex]
    /// The first offset after the run: the base offset of the segment that follows it.
    public var endOffset: UInt64
    /// Where the log's segments chain from: the run's are read, and its rewrite written,
    /// with their seeds.
    public var chain: SegmentChain

    /// The run's first offset, which names the rewritten segment.
    public var baseOffset: UInt64 { segments.first?.baseOffset ?? endOffset }
    /// Bytes of the segments in the run.
    public var sizeBytes: Int64 { segments.reduce(0) { $0 + $1.segmentSize } }
}

/// A run rewritten into one `.cleaned` file, synced, ready for `Log.installRewrite`.
public struct RewrittenRun: Sendable {
    /// The run it replaces.
    public var run: SegmentRun
    /// The index of the new segment.
    public var index: SegmentIndex
    /// The CRC of the rewrite's last batch (0 when it is empty): with the CRC chain, a
    /// commitment to every byte of the file, recorded in the manifest during the swap.
    public var lastBatchCRC: UInt32 = 0
    /// Records read from the run.
    public var recordsRead = 0
    /// Records written (kept or replaced).
    public var recordsWritten = 0
    /// Uncompressed record bytes read and written.
    public var rawBytesRead: Int64 = 0
    /// Uncompressed record bytes written.
    public var rawBytesWritten: Int64 = 0
}

/// Phase 1 of a crash-safe segment swap (the mechanism; what to keep is the caller's policy).
///
/// Reads the run's sealed segments (immutable, so no lock is needed while appends go on),
/// passes every record to `transform`, and writes the result as `<base>-<end>.seg.cleaned`,
/// then fsyncs it. Nothing in the log changes until `Log.installRewrite` swaps it in; a
/// failure before that removes the `.cleaned` file, and a crash leaves one the next open
/// deletes.
public enum SegmentRewriter {
    /// Writes the rewrite of `run`. `bytesPerSecondMax` throttles reading and writing.
    ///
    /// With `concurrency` (and no throttle), `concurrency.width` of the run's segments at a
    /// time are read, verified and filtered as concurrent jobs of the caller's runner, and
    /// their kept records then written in order on the calling thread; `transform` is called
    /// from those jobs concurrently. Memory holds the kept records of at most `width`
    /// segments. The storage layer starts no threads of its own.
    public static func rewrite(
        _ run: SegmentRun, directory: String, fileSystem: any FileSystem,
        configuration: LogConfiguration,
        bytesPerSecondMax: Int64? = nil, concurrency: ConcurrentJobs? = nil,
        transform: @Sendable (UInt64, UnsafeRawBufferPointer) throws(StorageError) -> RecordRewrite
    ) throws(StorageError) -> RewrittenRun {
        precondition(!run.segments.isEmpty, "empty run")
        let name = SegmentFileName.cleaned(baseOffset: run.baseOffset, endOffset: run.endOffset)
        let path = directory + "/" + name
        if fileSystem.exists(path) { try fileSystem.removeFile(path) }
        let output = try fileSystem.open(path, mode: .createNew)
        do throws(StorageError) {
            var result = RewrittenRun(run: run, index: SegmentIndex(baseOffset: run.baseOffset))
            var writer = RewriteWriter(
                file: output, configuration: configuration,
                firstPreviousCRC: run.chain.firstPreviousCRC(ofSegmentAt: run.baseOffset))
            if let concurrency, concurrency.width > 1, bytesPerSecondMax == nil,
                run.segments.count > 1
            {
                try rewriteConcurrently(
                    run, directory: directory, fileSystem: fileSystem, concurrency: concurrency,
                    transform: transform, into: &writer, result: &result)
            } else {
                try rewriteInOrder(
                    run, directory: directory, fileSystem: fileSystem,
                    bytesPerSecondMax: bytesPerSecondMax, transform: transform, into: &writer,
                    result: &result)
            }
            try writer.flush(index: &result.index)
            if result.index.lastBatchPosition >= 0 { result.lastBatchCRC = writer.lastCRC }
            try output.sync()
            try output.close()
            return result
        } catch {
            // A rewrite that failed (a full disk, most often) goes at once rather than hold
            // the space it took until the next open removes it. Both are best effort: the
            // error that stopped the rewrite is the one to report.
            try? output.close()
            try? fileSystem.removeFile(path)
            throw error
        }
    }

    /// One thread: each record is transformed and written as it is read.
    private static func rewriteInOrder(
        _ run: SegmentRun, directory: String, fileSystem: any FileSystem,
        bytesPerSecondMax: Int64?,
        transform: (UInt64, UnsafeRawBufferPointer) throws(StorageError) -> RecordRewrite,
        into writer: inout RewriteWriter, result: inout RewrittenRun
    ) throws(StorageError) {
        var limiter = ByteRateLimiter(bytesPerSecondMax: bytesPerSecondMax)
        try forEachRecord(
            of: run.segments, chain: run.chain, directory: directory, fileSystem: fileSystem
        ) {
            (offset, record) throws(StorageError) in
            result.recordsRead += 1
            let rewrite = try transform(offset, record)
            try write(rewrite, offset: offset, record: record, into: &writer, result: &result)
        } afterBatch: { header in
            result.rawBytesRead += Int64(header.rawLength)
            limiter.moved(header.totalSize)
        }
    }

    /// `concurrency.width` segments at a time are filtered by concurrent jobs into
    /// `KeptRecords`, which are then written in offset order.
    private static func rewriteConcurrently(
        _ run: SegmentRun, directory: String, fileSystem: any FileSystem,
        concurrency: ConcurrentJobs,
        transform: @Sendable (UInt64, UnsafeRawBufferPointer) throws(StorageError) -> RecordRewrite,
        into writer: inout RewriteWriter, result: inout RewrittenRun
    ) throws(StorageError) {
        let width = concurrency.width
        for groupStart in stride(from: 0, to: run.segments.count, by: width) {
            let group = Array(
                run.segments[groupStart..<min(run.segments.count, groupStart + width)])
            let filtered = concurrency.map(group.count) { (index) throws(StorageError) in
                try KeptRecords(
                    of: group[index], chain: run.chain, directory: directory,
                    fileSystem: fileSystem, transform: transform)
            }
            for index in group.indices {
                let kept = try filtered[index].get()
                result.recordsRead += kept.recordsRead
                result.rawBytesRead += kept.rawBytesRead
                try kept.forEach { (offset, rewrite, record) throws(StorageError) in
                    try write(
                        rewrite, offset: offset, record: record, into: &writer, result: &result)
                }
            }
        }
    }

    private static func write(
        _ rewrite: RecordRewrite, offset: UInt64, record: UnsafeRawBufferPointer,
        into writer: inout RewriteWriter, result: inout RewrittenRun
    ) throws(StorageError) {
        switch rewrite {
        case .drop:
            return
        case .keep(let version):
            try writer.append(
                offset: offset, version: version, record: record, index: &result.index)
            result.rawBytesWritten += Int64(record.count)
        case .replace(let bytes, let version):
            try writer.append(offset: offset, version: version, bytes: bytes, index: &result.index)
            result.rawBytesWritten += Int64(bytes.count)
        }
        result.recordsWritten += 1
    }

    /// The kept records of one segment, copied out of its batches (a read-ahead for
    /// `rewriteConcurrently`).
    private struct KeptRecords: Sendable {
        var bytes: [UInt8] = []
        var records: [(offset: UInt64, rewrite: RecordRewrite, start: Int, count: Int)] = []
        var recordsRead = 0
        var rawBytesRead: Int64 = 0

        init(
            of segment: SegmentIndex, chain: SegmentChain, directory: String,
            fileSystem: any FileSystem,
            transform: (UInt64, UnsafeRawBufferPointer) throws(StorageError) -> RecordRewrite
        ) throws(StorageError) {
            try SegmentRewriter.forEachRecord(
                of: [segment], chain: chain, directory: directory, fileSystem: fileSystem
            ) { (offset, record) throws(StorageError) in
                recordsRead += 1
                let rewrite = try transform(offset, record)
                if case .keep = rewrite {
                    records.append((offset, rewrite, bytes.count, record.count))
                    bytes.append(contentsOf: record)
                } else if case .replace = rewrite {
                    records.append((offset, rewrite, 0, 0))
                }
            } afterBatch: { header in
                rawBytesRead += Int64(header.rawLength)
            }
        }

        func forEach(
            _ body: (UInt64, RecordRewrite, UnsafeRawBufferPointer) throws(StorageError) -> Void
        ) throws(StorageError) {
            var failure: StorageError?
            bytes.withUnsafeBytes { all in
                for record in records {
                    do throws(StorageError) {
                        try body(
                            record.offset, record.rewrite,
                            UnsafeRawBufferPointer(
                                rebasing: all[record.start..<record.start + record.count]))
                    } catch {
                        failure = error
                        return
                    }
                }
            }
            if let failure { throw failure }
        }
    }

    private static func forEachRecord(
        of segments: [SegmentIndex], chain: SegmentChain, directory: String,
        fileSystem: any FileSystem,
        _ body: (UInt64, UnsafeRawBufferPointer) throws(StorageError) -> Void,
        afterBatch: (BatchHeader) -> Void
    ) throws(StorageError) {
        for segment in segments {
            let segmentPath =
                directory + "/" + SegmentFileName.segment(baseOffset: segment.baseOffset)
            let input = try fileSystem.open(segmentPath, mode: .read)
            defer { try? input.close() }  // read-only: nothing to lose
            let reader = SegmentReader(
                file: input, from: 0, to: segment.segmentSize,
                previousBatchCRC: chain.expectedFirstPreviousCRC(ofSegmentAt: segment.baseOffset))
            while true {
                let step = try reader.next()
                guard case .batch(let header, _) = step else {
                    if case .invalid(let position, let reason, let header) = step {
                        throw StorageError(
                            .corruption, reason, path: segmentPath, byteOffset: position,
                            logOffset: header?.baseOffset)
                    }
                    break
                }
                var failure: StorageError?
                _ = reader.raw.withUnsafeBytes { payload in
                    BatchDecoder.forEachRecord(payload) { delta, record in
                        do throws(StorageError) {
                            try body(header.baseOffset + delta, record)
                            return true
                        } catch {
                            failure = error
                            return false
                        }
                    }
                }
                if let failure { throw failure.located(path: segmentPath) }
                afterBatch(header)
            }
        }
    }
}

/// Batches records into the file being rewritten, chaining CRCs and indexing as it goes.
struct RewriteWriter {
    let file: any StorageFile
    let configuration: LogConfiguration
    var encoder = BatchEncoder()
    /// The CRC the next batch chains to: the last one written, or the segment's seed.
    var lastCRC: UInt32
    /// Write-back started as the output grows, so its final sync has little left to write.
    var writeback = WritebackSchedule()

    init(file: any StorageFile, configuration: LogConfiguration, firstPreviousCRC: UInt32) {
        self.file = file
        self.configuration = configuration
        lastCRC = firstPreviousCRC
    }

    mutating func append(
        offset: UInt64, version: UInt64, record: UnsafeRawBufferPointer, index: inout SegmentIndex
    ) throws(StorageError) {
        if !encoder.canAppend(byteCount: record.count) { try flush(index: &index) }
        encoder.append(offset: offset, version: version, record: record)
        if encoder.rawSize >= configuration.batchSizeTarget { try flush(index: &index) }
    }

    mutating func append(offset: UInt64, version: UInt64, bytes: [UInt8], index: inout SegmentIndex)
        throws(StorageError)
    {
        var failure: StorageError?
        bytes.withUnsafeBytes { record in
            do throws(StorageError) {
                try append(offset: offset, version: version, record: record, index: &index)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    mutating func flush(index: inout SegmentIndex) throws(StorageError) {
        guard !encoder.isEmpty else { return }
        let (bytes, header) = encoder.encode(
            previousBatchCRC: lastCRC, hcLevel: configuration.hcLevel)
        let position = index.segmentSize
        try file.write(bytes, at: position)
        index.noteBatch(header, at: position, intervalBytes: configuration.indexIntervalBytes)
        lastCRC = header.batchCRC
        encoder.reset()
        writeback.noteWritten(
            upTo: index.segmentSize, in: file, every: configuration.writebackAfterBytes)
    }
}
