import Foundation
import LogbookCRDT
import LogbookStorage

/// How a compaction runs.
public struct CompactionOptions: Sendable {
    /// Compute and report, write nothing.
    public var dryRun = false
    /// Cap reading and writing at this many bytes per second (both passes; a throttled
    /// compaction runs on one thread); nil for no cap.
    public var bytesPerSecondMax: Int64? = nil
    /// Skip the rewrite unless at least this fraction of the sealed records is superseded
    /// (0 rewrites whenever anything can be dropped). Default 0.5, as Kafka's cleaner.
    public var dirtyRatioMin = 0.5
    /// Threads for pass 1 (finding the winners); each reads the whole log and keeps the
    /// winners of a share of the records. Default: the active processor count, at most 4.
    /// Appends keep running meanwhile; lower this (or set `bytesPerSecondMax`) to leave
    /// them more CPU.
    public var threads = min(4, ProcessInfo.processInfo.activeProcessorCount)
    /// Compress the rewritten segments with LZ4 HC at this level; nil (the default) for fast
    /// LZ4. HC shrinks segments by a few percent more and costs several times the CPU.
    public var hcLevel: Int32? = nil
    /// Whether to seal the active segment first, so that its records are compacted too:
    /// only sealed segments are ever rewritten, and a log under `segmentSizeMax` (64 MiB)
    /// keeps every record in its active one. Default `.never`.
    public var sealing = ActiveSegmentSealing.never
    /// How many of the latest offsets' full versions pass 1 keeps, per thread (32 bytes
    /// each), so that a column-version tie with a recent winner (two nodes writing one
    /// column at once) is settled in memory instead of by reading the winner back from the
    /// log. Default 65,536 (2 MiB a thread); 0 reads every tie back; at most 2^24.
    public var recentVersionsKept = 1 << 16
    /// Told how far each pass is (`logbook compact` draws it on a terminal); nil for none.
    public var progress: MaintenanceProgress? = nil

    /// The defaults.
    public init() {}
}

/// When a compaction seals the active segment first. A dry run never seals; it reports
/// what sealing would add (`CompactionReport.activeRecords`, `sealedActiveSegment`).
public enum ActiveSegmentSealing: Sendable {
    /// Leave it: compact the sealed segments only.
    case never
    /// Seal it whenever some of its records are superseded (what `logbook compact` does:
    /// it holds the directory, so no writer is appending meanwhile).
    case always
    /// Seal it when some of its records are superseded and the superseded fraction of the
    /// whole log, the active segment included, reaches `dirtyRatioMin` (what a serving
    /// node's scheduled compaction does).
    case whenDirty
}

/// What a compaction found and did. Encoded by its property names (`logbook compact --json`).
public struct CompactionReport: Sendable, Encodable {
    /// Sealed segments before and after.
    public var segmentsBefore = 0
    /// Sealed segments before and after.
    public var segmentsAfter = 0
    /// Records in the sealed segments before.
    public var recordsBefore = 0
    /// Records kept (or that would be kept).
    public var recordsAfter = 0
    /// Bytes of the sealed segments before.
    public var bytesBefore: Int64 = 0
    /// Bytes of the sealed segments after (estimated on a dry run).
    public var bytesAfter: Int64 = 0
    /// Uncompressed record bytes read by the rewrite.
    public var rawBytesRead: Int64 = 0
    /// Superseded fraction of the sealed records.
    public var dirtyRatio = 0.0
    /// Live (record, column) keys in the whole log.
    public var liveKeys = 0
    /// Live tombstones in the whole log.
    public var tombstones = 0
    /// Bytes of pass 1's winner map (its slots at their capacity).
    public var winnerMapBytes = 0
    /// Bytes of pass 1's numbering of record ids and column names (tables at their
    /// capacity, plus each record's first creation and last deletion offsets).
    public var numberingBytes = 0
    /// Ties between column versions pass 1 settled by reading the winner back from the log.
    public var versionReadBacks = 0
    /// Ties between column versions pass 1 settled from the versions of recently logged
    /// changes it keeps (the last 65,536 offsets), without reading the log again.
    public var tiesSettledInMemory = 0
    /// True when segments were rewritten.
    public var didRewrite = false
    /// Records of the active segment, analysed beside the sealed ones.
    public var activeRecords = 0
    /// Of them, superseded.
    public var activeSuperseded = 0
    /// True when the active segment was sealed first (on a dry run: would have been).
    public var sealedActiveSegment = false
    /// Why nothing was rewritten, when nothing was.
    public var skippedBecause: String?
    /// Wall time.
    public var seconds = 0.0
    /// Wall time of pass 1 (finding the winners), part of `seconds`.
    public var findSeconds = 0.0
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    (ContinuousClock.now - start).seconds
}

/// Compaction, the policy half: pass 1 reads every record's key once and marks what is
/// superseded (`LiveSet`); pass 2 rewrites the sealed segments without it, through the
/// storage layer's crash-safe swap.
///
/// Offsets keep their numbers (dropped records leave holes); clock records are always
/// kept; small neighbouring segments are merged into one of at most `segmentSizeMax`. The
/// active segment is never touched, and appends continue meanwhile: only the swap itself
/// takes the Logbook's lock. Replaying the compacted log gives the same `stateDigest()`.
enum Compactor {
    static func compact(_ logbook: Logbook, options: CompactionOptions) throws(LogbookError)
        -> CompactionReport
    {
        let started = ContinuousClock.now
        // A throttled compaction reads the log once, on one thread, at the throttled rate.
        let threads = options.bytesPerSecondMax == nil ? max(1, options.threads) : 1
        let (cursors, sealedRuns, directory, fileSystem, configuration) =
            try logbook.snapshotForCompaction(cursors: threads)
        // Taken after the cursors: a roll in between leaves a segment in neither, and the
        // pass then neither seals nor rewrites it.
        let active = logbook.activeSegmentSpan()
        // Pass 1: every record's key, in offset order; counts per run on the way.
        let search = try WinnerSearch(
            logbook, cursors: cursors, runs: sealedRuns, active: active,
            bytesPerSecondMax: options.bytesPerSecondMax,
            recentVersionsKept: options.recentVersionsKept, progress: options.progress)
        let dead = search.dead
        var report = CompactionReport()
        let (runs, recordsPerRun) = try sealIfAsked(
            logbook, options, active: active, runs: sealedRuns,
            recordsPerRun: search.recordsPerRun, dead: dead, report: &report)
        report.findSeconds = seconds(since: started)
        report.segmentsBefore = runs.reduce(0) { $0 + $1.segments.count }
        report.bytesBefore = runs.reduce(0) { $0 + $1.sizeBytes }
        report.liveKeys = search.liveKeys
        report.tombstones = search.tombstones
        report.winnerMapBytes = search.winnerMapBytes
        report.numberingBytes = search.numberingBytes
        report.versionReadBacks = search.versionReadBacks
        report.tiesSettledInMemory = search.tiesSettledInMemory
        var settings = configuration
        settings.hcLevel = options.hcLevel
        let plans = zip(runs, recordsPerRun).map { run, read in
            (run, kept: read - dead.count(in: run.baseOffset..<run.endOffset), read: read)
        }
        report.recordsBefore = plans.reduce(0) { $0 + $1.read }
        report.recordsAfter = plans.reduce(0) { $0 + $1.kept }
        if options.dryRun && report.sealedActiveSegment {  // counted as if sealed
            report.recordsBefore += report.activeRecords
            report.recordsAfter += report.activeRecords - report.activeSuperseded
        }
        report.dirtyRatio =
            report.recordsBefore == 0
            ? 0 : Double(report.recordsBefore - report.recordsAfter) / Double(report.recordsBefore)
        let merged = mergeSmallNeighbours(
            plans, segmentSizeMax: configuration.segmentSizeMax)
        report.segmentsAfter = merged.count
        if report.recordsBefore == report.recordsAfter && merged.count == report.segmentsBefore {
            report.skippedBecause = "nothing to drop and nothing to merge"
        } else if report.dirtyRatio < options.dirtyRatioMin && merged.count == report.segmentsBefore
        {
            report.skippedBecause = String(
                format: "dirty ratio %.2f is below %.2f", report.dirtyRatio, options.dirtyRatioMin)
        }
        if options.dryRun || report.skippedBecause != nil {
            report.segmentsAfter =
                report.skippedBecause == nil ? merged.count : report.segmentsBefore
            report.bytesAfter =
                report.skippedBecause == nil
                ? merged.reduce(0) {
                    $0 + Int64(Double($1.run.sizeBytes) * Double($1.kept) / Double(max(1, $1.read)))
                }
                : report.bytesBefore
            report.seconds = seconds(since: started)
            return report
        }
        try rewriteAll(
            merged.map(\.run), logbook, directory: directory, fileSystem: fileSystem,
            configuration: settings, options: options, threads: threads, dead: dead,
            report: &report)
        report.didRewrite = true
        report.seconds = seconds(since: started)
        return report
    }

    /// Pass 2: rewrites each run keeping its live records and swaps it in, telling
    /// `options.progress` how far it is in stored bytes.
    private static func rewriteAll(
        _ runs: [SegmentRun], _ logbook: Logbook, directory: String, fileSystem: any FileSystem,
        configuration: LogConfiguration, options: CompactionOptions, threads: Int,
        dead: DeadRecords, report: inout CompactionReport
    ) throws(LogbookError) {
        let total = runs.reduce(Int64(0)) { $0 + $1.sizeBytes }
        var done: Int64 = 0
        for run in runs {
            options.progress?(.rewriting, done, total)
            done += run.sizeBytes
            let rewritten = try rewrite(
                run, directory: directory, fileSystem: fileSystem,
                configuration: configuration, bytesPerSecondMax: options.bytesPerSecondMax,
                threads: threads
            ) { dead.isLive($0) }
            report.rawBytesRead += rewritten.rawBytesRead
            report.bytesAfter += rewritten.index.segmentSize
            try logbook.installCompacted(rewritten)
        }
        options.progress?(.rewriting, total, total)
    }

    /// Seals the active segment when `options.sealing` asks for it (a dry run only notes
    /// that it would), noting what the active segment holds in `report`; returns the runs
    /// to compact and their record counts, the sealed segment appended when it was sealed.
    private static func sealIfAsked(
        _ logbook: Logbook, _ options: CompactionOptions, active: Range<UInt64>,
        runs: [SegmentRun], recordsPerRun: [Int], dead: DeadRecords,
        report: inout CompactionReport
    ) throws(LogbookError) -> ([SegmentRun], [Int]) {
        guard !active.isEmpty else { return (runs, recordsPerRun) }
        report.activeRecords = Int(clamping: active.upperBound - active.lowerBound)
        report.activeSuperseded = dead.count(in: active)
        let sealedRecords = recordsPerRun.reduce(0, +)
        let sealedDead = runs.reduce(0) { $0 + dead.count(in: $1.baseOffset..<$1.endOffset) }
        let wholeRatio =
            Double(sealedDead + report.activeSuperseded)
            / Double(max(1, sealedRecords + report.activeRecords))
        // Sealing a segment with nothing superseded would only leave a small one behind.
        guard report.activeSuperseded > 0 else { return (runs, recordsPerRun) }
        switch options.sealing {
        case .never: return (runs, recordsPerRun)
        case .always: break
        case .whenDirty:
            guard wholeRatio >= options.dirtyRatioMin else { return (runs, recordsPerRun) }
        }
        report.sealedActiveSegment = true
        guard !options.dryRun, let sealed = try logbook.sealActiveSegment(after: runs) else {
            return (runs, recordsPerRun)
        }
        // A fresh segment's offsets are contiguous: its record count is its span (records
        // appended after pass 1 read it are outside `dead`'s range, so they stay).
        return (
            runs + [sealed],
            recordsPerRun + [Int(clamping: sealed.endOffset - sealed.baseOffset)]
        )
    }

    /// Rewrites `run` keeping the records `isKept` says yes to (shared with tombstone GC).
    static func rewrite(
        _ run: SegmentRun, directory: String, fileSystem: any FileSystem,
        configuration: LogConfiguration, bytesPerSecondMax: Int64?, threads: Int = 1,
        isKept: @escaping @Sendable (UInt64) -> Bool
    ) throws(LogbookError) -> RewrittenRun {
        do {
            return try SegmentRewriter.rewrite(
                run, directory: directory, fileSystem: fileSystem, configuration: configuration,
                bytesPerSecondMax: bytesPerSecondMax,
                concurrency: threads > 1 ? .dispatch(width: threads) : nil
            ) { (offset, record) throws(StorageError) in
                try decision(offset, record, isKept: isKept(offset))
            }
        } catch {
            throw LogbookError(error)
        }
    }

    /// Keep or drop one stored record.
    private static func decision(_ offset: UInt64, _ record: UnsafeRawBufferPointer, isKept: Bool)
        throws(StorageError) -> RecordRewrite
    {
        guard isKept else { return .drop }
        guard let key = ChangeRecordCodec.readKey(record) else {
            throw StorageError(.corruption, "malformed change record", logOffset: offset)
        }
        return .keep(version: key.localDbVersion)
    }

    /// Greedily joins consecutive runs whose live bytes fit one segment.
    private static func mergeSmallNeighbours(
        _ plans: [(SegmentRun, kept: Int, read: Int)], segmentSizeMax: Int64
    ) -> [(run: SegmentRun, kept: Int, read: Int)] {
        var merged: [(run: SegmentRun, kept: Int, read: Int)] = []
        var liveBytes: Int64 = 0
        for (run, kept, read) in plans {
            let estimate = Int64(Double(run.sizeBytes) * Double(kept) / Double(max(1, read)))
            if var last = merged.last, liveBytes + estimate <= segmentSizeMax {
                last.run.segments += run.segments
                last.run.endOffset = run.endOffset
                last.kept += kept
                last.read += read
                merged[merged.count - 1] = last
                liveBytes += estimate
            } else {
                merged.append((run, kept, read))
                liveBytes = estimate
            }
        }
        return merged
    }

    /// Reads the key of every record of the cursor (no strings or values are built), at most
    /// `bytesPerSecondMax` stored bytes a second. `progress` hears after each batch how far
    /// into `span` (log offsets) the reading is, and the whole span at the end.
    static func forEachKey(
        _ cursor: LogCursor, bytesPerSecondMax: Int64? = nil,
        progress: MaintenanceProgress? = nil, span: Range<UInt64> = 0..<0,
        _ body: (UInt64, ChangeRecordKey) throws(LogbookError) -> Void
    ) throws(LogbookError) {
        var limiter = ByteRateLimiter(bytesPerSecondMax: bytesPerSecondMax)
        let total = Int64(clamping: span.upperBound - span.lowerBound)
        while try forEachKeyOfNextBatch(cursor, body) {
            limiter.moved(cursor.header?.totalSize ?? 0)
            if let progress, let header = cursor.header {
                // Appends after the cursor was made lie past the span: they count as its end.
                let position = min(max(header.baseOffset, span.lowerBound), span.upperBound)
                progress(.readingKeys, Int64(clamping: position - span.lowerBound), total)
            }
        }
        progress?(.readingKeys, total, total)
    }

    /// Advances `cursor` one batch and reads its records' keys; false at the end.
    static func forEachKeyOfNextBatch(
        _ cursor: LogCursor, _ body: (UInt64, ChangeRecordKey) throws(LogbookError) -> Void
    ) throws(LogbookError) -> Bool {
        let hasBatch: Bool
        do { hasBatch = try cursor.next() } catch { throw LogbookError(error) }
        guard hasBatch else { return false }
        try cursor.forEachRecord { (offset, bytes) throws(LogbookError) in
            guard let key = ChangeRecordCodec.readKey(bytes) else {
                throw LogbookError(
                    .corruption, "malformed change record", path: cursor.location.path,
                    logOffset: offset)
            }
            try body(offset, key)
        }
        return true
    }
}

extension ConcurrentJobs {
    /// Jobs on Dispatch's worker threads, `width` at a time.
    static func dispatch(width: Int) -> ConcurrentJobs {
        ConcurrentJobs(width: width) { count, job in
            // One job runs on the calling thread; Dispatch is for more.
            if count == 1 {
                job(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: count, execute: job)
            }
        }
    }
}
