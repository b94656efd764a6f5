import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookWorkloads

/// What one append run did.
struct AppendOutcome {
    var count = 0
    var seconds = 0.0
    var bytes: Int64 = 0
    var syncs = 0
    var latency = LatencyRecorder()
}

extension LogBenchmark {
    /// A fresh Logbook in the benchmark's log directory. Segments of 4 MiB, so the
    /// compaction figure has sealed segments to work on.
    func freshLogbook(_ durability: Durability) throws -> Logbook {
        try? FileManager.default.removeItem(atPath: logDirectory)
        var options = LogbookOptions()
        options.durability = durability
        options.log.segmentSizeMax = 4 * 1024 * 1024
        return try Logbook.open(directory: logDirectory, nodeId: 1, options: options)
    }

    /// One call in this many of a `.buffered` one-writer run is timed for its latency; a
    /// synced run times every call. Timing a call reads the clock twice, about 7 % of a
    /// buffered call here (1.46 M against 1.57 M changes/s, every call timed or none, in
    /// the same probe): the append figures would carry the harness's cost, which SQLite's
    /// baseline, timed a transaction at a time, does not. A fixed stride over the
    /// workload's random operations is a uniform sample (about 75,000 calls of the 600,000).
    static let bufferedLatencyStride = 8

    /// One writer, one call per operation, calls timed for their latency (every one for a
    /// synced mode, one in `bufferedLatencyStride` for `.buffered`); from the main actor
    /// when `fromMainActor`, as an app's view code calls.
    func append(
        _ operations: [StandardWorkload.Operation], durability: Durability,
        fromMainActor: Bool = false
    ) async throws -> AppendOutcome {
        let logbook = try freshLogbook(durability)
        let stride = durability == .buffered ? Self.bufferedLatencyStride : 1
        let started = ContinuousClock.now
        var outcome =
            fromMainActor
            ? try await Self.callFromMainActor(operations, logbook, latencyStride: stride)
            : try await Self.call(operations, logbook, latencyStride: stride)
        try logbook.sync()
        outcome.seconds = (ContinuousClock.now - started).seconds
        outcome.bytes = logbook.sizeBytes
        outcome.syncs =
            durability == .fsyncEachAppend ? operations.count : logbook.groupCommitSyncCount
        try logbook.close()
        return outcome
    }

    /// The operations, one call each, on the caller's executor; the first call of every
    /// `latencyStride` is timed.
    nonisolated(nonsending) static func call(
        _ operations: [StandardWorkload.Operation], _ logbook: Logbook, latencyStride: Int
    ) async throws -> AppendOutcome {
        precondition(latencyStride > 0, "latencyStride must be positive")
        var outcome = AppendOutcome()
        outcome.latency.reserve(operations.count / latencyStride + 1)
        for (index, operation) in operations.enumerated() {
            guard index % latencyStride == 0 else {
                outcome.count += try await operation.apply(to: logbook)
                continue
            }
            let callStarted = ContinuousClock.now
            outcome.count += try await operation.apply(to: logbook)
            outcome.latency.record(ContinuousClock.now - callStarted)
        }
        return outcome
    }

    /// `call(_:_:latencyStride:)` on the main actor.
    @MainActor static func callFromMainActor(
        _ operations: [StandardWorkload.Operation], _ logbook: Logbook, latencyStride: Int
    ) async throws -> AppendOutcome {
        try await call(operations, logbook, latencyStride: latencyStride)
    }

    /// The operations split over `writers` tasks with group commit.
    func appendConcurrently(_ operations: [StandardWorkload.Operation], writers: Int) async throws
        -> AppendOutcome
    {
        let logbook = try freshLogbook(.groupCommit)
        let started = ContinuousClock.now
        let perWriter = try await withThrowingTaskGroup(of: (Int, LatencyRecorder).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var count = 0
                    var latency = LatencyRecorder()
                    for index in stride(from: writer, to: operations.count, by: writers) {
                        let callStarted = ContinuousClock.now
                        count += try await operations[index].apply(to: logbook)
                        latency.record(ContinuousClock.now - callStarted)
                    }
                    return (count, latency)
                }
            }
            return try await group.reduce(into: [(Int, LatencyRecorder)]()) { $0.append($1) }
        }
        var outcome = AppendOutcome()
        outcome.seconds = (ContinuousClock.now - started).seconds
        for (count, latency) in perWriter {
            outcome.count += count
            outcome.latency.merge(latency)
        }
        outcome.syncs = logbook.groupCommitSyncCount
        outcome.bytes = logbook.sizeBytes
        try logbook.close()
        return outcome
    }

    /// Merges the changes 10,000 per call into a fresh buffered Logbook.
    func mergeInBulk(_ changes: [Change<String, String, Value>]) async throws -> (Int, Double) {
        let logbook = try freshLogbook(.buffered)
        let started = ContinuousClock.now
        var accepted = 0
        for chunk in stride(from: 0, to: changes.count, by: 10_000) {
            accepted += try await logbook.mergeLocated(
                Array(changes[chunk..<min(chunk + 10_000, changes.count)])
            ).acceptedCount
        }
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        try logbook.close()
        return (accepted, seconds)
    }

    /// Makes the writes, one batch a call (`Logbook.write(_:)`), in a fresh buffered
    /// Logbook; returns the changes made and the seconds taken. The workload's writes to
    /// deleted records are made as crdt-lite makes them (skipped), as the one-call rows do.
    func writeInBatches(_ batches: [[LocalWrite]]) async throws -> (Int, Double) {
        let logbook = try freshLogbook(.buffered)
        let started = ContinuousClock.now
        var made = 0
        for batch in batches {
            made += try await logbook.write(batch, skippingDeletedRecords: true).count
        }
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        try logbook.close()
        return (made, seconds)
    }

    /// Reads, checks, decompresses and decodes every record, without the CRDT.
    func decodeOnly() throws -> (changes: Int, rawBytes: Int64) {
        let log = try Log.open(directory: logDirectory, createIfMissing: false)
        defer { try? log.close() }  // read-only use
        let cursor = try log.makeCursor(from: 0)
        var count = 0
        var rawBytes: Int64 = 0
        var change = ChangeRecordCodec.blankChange()
        while try cursor.next() {
            rawBytes += Int64(cursor.header?.rawLength ?? 0)
            cursor.forEachRecord { _, bytes in
                if case .change = ChangeRecordCodec.decode(bytes, into: &change) { count += 1 }
            }
        }
        return (count, rawBytes)
    }
}
