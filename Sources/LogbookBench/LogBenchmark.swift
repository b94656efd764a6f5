import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookWorkloads

/// The benchmark behind `logbook bench`: the standard workload through Logbook in each
/// durability mode, replayed and compacted, next to SQLite and crdt-lite-style JSON doing the
/// same work in the same process, with LZ4 and the disk's fsync rate as ceilings. Every
/// figure is a median over `runs`; see docs/benchmarks.md.
struct LogBenchmark {
    let directory: String
    let records: Int
    let changes: Int
    let runs: Int
    let writers: Int
    /// Operations for the per-call fsync figures (each costs one fsync).
    var syncedOperations = 2000
    /// Only the read figures (write the log once, then measure reading it).
    var readOnly = false
    var progress: (String) -> Void

    var logDirectory: String { directory + "/log" }

    /// How many times `run()` reports progress: the read figures' five steps (write the
    /// log, decode, open, write a snapshot, open from it), plus ten append steps (four
    /// durabilities, calls from the main actor, bulk merge, batched local writes, the local
    /// writes alone, in-memory merge, state digest), compaction, the seal, the LZ4 codecs,
    /// four baselines,
    /// JSON decoding, JSON encoding and the ceilings for the full suite. Keep in step with
    /// the `progress` calls.
    var stepCount: Int { readOnly ? 5 : 25 }

    func run() async throws -> [BenchFigure] {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        let operations = StandardWorkload.operations(records: records, changes: changes)
        let bulk = StandardWorkload.changes(of: operations)
        let changesPerCall = Double(bulk.count) / Double(max(1, operations.count))
        var figures: [BenchFigure] = []
        if !readOnly {
            figures += try await appendFigures(operations, bulk: bulk)
        }
        progress("writing the log the read figures use")
        let written = try await append(operations, durability: .buffered).count
        figures += try await readFigures(written: written)
        if !readOnly {
            figures += try await compactionFigure()
            figures += try sealFigures()
            figures += try lz4Figures()
            figures += try await baselineFigures(bulk)
            figures += try await jsonDecodingFigures(bulk)
            figures += try await jsonEncodingFigures(bulk)
            figures += try await ceilingFigures(changes: written, changesPerCall: changesPerCall)
            annotateLocalWritesShare(&figures)
            annotateGroupCommitBound(&figures, changesPerCall: changesPerCall)
        }
        return figures
    }

    // MARK: Logbook

    private func appendFigures(
        _ operations: [StandardWorkload.Operation], bulk: [Change<String, String, Value>]
    ) async throws -> [BenchFigure] {
        var figures: [BenchFigure] = []
        for (durability, count, concurrency) in [
            (Durability.buffered, operations.count, 1), (.fsyncEachAppend, syncedOperations, 1),
            (.groupCommit, syncedOperations, 1), (.groupCommit, operations.count, writers),
        ] {
            let subset = Array(operations.prefix(count))
            var latency = LatencyRecorder()
            var outcome = AppendOutcome()
            progress("append \(durability.rawValue), \(concurrency) writer(s)")
            let (seconds, peak) = try await measure(runs: runs) {
                outcome =
                    concurrency == 1
                    ? try await append(subset, durability: durability)
                    : try await appendConcurrently(subset, writers: concurrency)
                latency = outcome.latency
                return outcome.seconds
            }
            figures.append(
                BenchFigure(
                    system: "Logbook",
                    name:
                        "append .\(durability.rawValue), \(concurrency) writer\(concurrency == 1 ? "" : "s")",
                    kind: durability == .buffered && concurrency == 1 ? "append" : nil,
                    changesPerSecond: Double(outcome.count) / seconds,
                    diskMegabytesPerSecond: Double(outcome.bytes) / seconds / 1e6,
                    bytesPerChange: Double(outcome.bytes) / Double(max(1, outcome.count)),
                    latency: latency.percentiles(),
                    fsyncsPerSecond: outcome.syncs > 0 ? Double(outcome.syncs) / seconds : nil,
                    peakMegabytes: peak,
                    note: "\(outcome.count) changes"
                        + (durability == .buffered ? Self.sampledLatencyNote : "")))
        }
        figures.append(try await mainActorAppendFigure(operations))
        progress("append by bulk merge")
        var merged = 0
        let (bulkSeconds, bulkPeak) = try await measure(runs: runs) {
            let (count, seconds) = try await mergeInBulk(bulk)
            merged = count
            return seconds
        }
        figures.append(
            BenchFigure(
                system: "Logbook", name: "append .buffered, merge 10k changes/call",
                changesPerSecond: Double(merged) / bulkSeconds,
                peakMegabytes: bulkPeak, note: "changes made by another replica"))
        figures.append(try await batchedWriteFigure(operations))
        figures += try await localWritesAloneFigures(operations)
        progress("in-memory merge: CRDT, then the specialized state")
        figures.append(
            await inMemoryMergeFigure(
                bulk, name: "reference: in-memory CRDT merge, no log", note: "the CRDT alone"
            ) {
                let replica = CRDT<String, String, Value>(nodeId: 1)
                return { replica.mergeChanges($0).count }
            })
        figures.append(
            await inMemoryMergeFigure(
                bulk, name: "in-memory merge, specialized state, no log",
                note: "ReplicaState.merge: accepted as positions, not copies"
            ) {
                let replica = ReplicaState(nodeId: 1)
                return { replica.merge($0).count }
            })
        progress("state digest: first, then after more changes")
        figures += await digestFigures(bulk)
        return figures
    }

    /// Said of a figure whose latency is sampled (`bufferedLatencyStride`).
    static var sampledLatencyNote: String { "; latency of 1 call in \(bufferedLatencyStride)" }

    /// The one-call `.buffered` appends made from the main actor, where an app's view code
    /// runs: the calls run there too (`nonisolated(nonsending)`), with no hop to another
    /// thread and back per call.
    private func mainActorAppendFigure(_ operations: [StandardWorkload.Operation]) async throws
        -> BenchFigure
    {
        progress("append .buffered, 1 writer, calls from the main actor")
        var outcome = AppendOutcome()
        let (seconds, peak) = try await measure(runs: runs) {
            outcome = try await append(operations, durability: .buffered, fromMainActor: true)
            return outcome.seconds
        }
        return BenchFigure(
            system: "Logbook", name: "append .buffered, 1 writer on the main actor",
            changesPerSecond: Double(outcome.count) / seconds,
            latency: outcome.latency.percentiles(), peakMegabytes: peak,
            note: "\(outcome.count) changes; an app's view code calling"
                + Self.sampledLatencyNote)
    }

    /// The workload's local writes made 10,000 a call (`Logbook.write(_:)`), cut before the
    /// clock starts: the batched counterpart of SQLite's 10,000 rows per transaction.
    private func batchedWriteFigure(_ operations: [StandardWorkload.Operation]) async throws
        -> BenchFigure
    {
        progress("append by local writes, 10,000 a call")
        let writeBatches = Self.writeBatches(operations)
        var made = 0
        let (seconds, peak) = try await measure(runs: runs) {
            let (count, seconds) = try await writeInBatches(writeBatches)
            made = count
            return seconds
        }
        return BenchFigure(
            system: "Logbook", name: "append .buffered, 10k writes/call",
            kind: "append, 10k per call", changesPerSecond: Double(made) / seconds,
            peakMegabytes: peak, note: "Logbook.write: the workload's local writes, 10,000 a call")
    }

    /// `bulk` cut into merge calls of 10,000 changes, before any clock starts.
    static func chunksOfTenThousand(_ bulk: [Change<String, String, Value>]) -> [[Change<
        String, String, Value
    >]] {
        stride(from: 0, to: bulk.count, by: 10_000).map { start in
            Array(bulk[start..<min(start + 10_000, bulk.count)])
        }
    }

    /// Merges `bulk` in chunks of 10,000 (cut before the clock starts) into the replica
    /// `makeReplica` makes (untimed) through the merge call it returns.
    private func inMemoryMergeFigure(
        _ bulk: [Change<String, String, Value>], name: String, note: String,
        makeReplica: () -> (([Change<String, String, Value>]) -> Int)
    ) async -> BenchFigure {
        let chunks = Self.chunksOfTenThousand(bulk)
        let (seconds, peak) = await measure(runs: runs) {
            let merge = makeReplica()
            let started = ContinuousClock.now
            for chunk in chunks { _ = merge(chunk) }
            return (ContinuousClock.now - started).seconds
        }
        return BenchFigure(
            system: "Logbook", name: name, changesPerSecond: Double(bulk.count) / seconds,
            peakMegabytes: peak, note: note)
    }

    private func readFigures(written: Int) async throws -> [BenchFigure] {
        let log = try Log.open(directory: logDirectory, createIfMissing: false)
        let size = log.sizeBytes
        try log.close()
        var decoded = (changes: 0, rawBytes: Int64(0))
        progress("replay, decode only")
        let (decodeSeconds, decodePeak) = try await measure(runs: runs) {
            let started = ContinuousClock.now
            decoded = try decodeOnly()
            return (ContinuousClock.now - started).seconds
        }
        progress("open: replay into the CRDT")
        let (openSeconds, openPeak) = try await measure(runs: runs) {
            var options = LogbookOptions()
            options.durability = .buffered
            options.snapshots = .off  // the whole log, every run
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: logDirectory, options: options)
            let seconds = (ContinuousClock.now - started).seconds
            try logbook.close()
            return seconds
        }
        let snapshotFigures = try await self.snapshotFigures(
            changes: decoded.changes, replaySeconds: openSeconds)
        return [
            BenchFigure(
                system: "Logbook", name: "replay: read, checksum, decompress, decode",
                changesPerSecond: Double(decoded.changes) / decodeSeconds,
                rawMegabytesPerSecond: Double(decoded.rawBytes) / decodeSeconds / 1e6,
                diskMegabytesPerSecond: Double(size) / decodeSeconds / 1e6,
                bytesPerChange: Double(size) / Double(max(1, written)),
                peakMegabytes: decodePeak, note: "one core, no CRDT"),
            BenchFigure(
                system: "Logbook", name: "open: replay + rebuild CRDT", kind: "replay",
                changesPerSecond: Double(decoded.changes) / openSeconds,
                rawMegabytesPerSecond: Double(decoded.rawBytes) / openSeconds / 1e6,
                diskMegabytesPerSecond: Double(size) / openSeconds / 1e6, peakMegabytes: openPeak,
                note: "two threads: read + decode, restore"),
        ] + snapshotFigures
    }

    private func compactionFigure() async throws -> [BenchFigure] {
        progress("compaction")
        var compacted: CompactionReport?
        let (seconds, peak) = try await measure(runs: 1) {
            var options = LogbookOptions()
            options.durability = .buffered
            let logbook = try Logbook.open(directory: logDirectory, options: options)
            var compaction = CompactionOptions()
            compaction.dirtyRatioMin = 0
            let report = try logbook.compact(compaction)
            compacted = report
            try logbook.close()
            return report.seconds
        }
        guard let report = compacted else { return [] }
        return [
            BenchFigure(
                system: "Logbook", name: "compaction of the sealed segments",
                changesPerSecond: Double(report.recordsBefore) / seconds,
                rawMegabytesPerSecond: Double(report.rawBytesRead) / seconds / 1e6,
                peakMegabytes: peak,
                note:
                    "\(report.recordsBefore) -> \(report.recordsAfter) records, \(formatBytes(report.bytesBefore)) -> \(formatBytes(report.bytesAfter))"
            )
        ]
    }
}
