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

    /// One writer, one call per operation, each call timed; from the main actor when
    /// `fromMainActor`, as an app's view code calls.
    func append(
        _ operations: [StandardWorkload.Operation], durability: Durability,
        fromMainActor: Bool = false
    ) async throws -> AppendOutcome {
        let logbook = try freshLogbook(durability)
        let started = ContinuousClock.now
        var outcome =
            fromMainActor
            ? try await Self.callFromMainActor(operations, logbook)
            : try await Self.call(operations, logbook)
        try logbook.sync()
        outcome.seconds = (ContinuousClock.now - started).seconds
        outcome.bytes = logbook.sizeBytes
        outcome.syncs =
            durability == .fsyncEachAppend ? operations.count : logbook.groupCommitSyncCount
        try logbook.close()
        return outcome
    }

    /// The operations, one call each, timed, on the caller's executor.
    nonisolated(nonsending) static func call(
        _ operations: [StandardWorkload.Operation], _ logbook: Logbook
    ) async throws -> AppendOutcome {
        var outcome = AppendOutcome()
        for operation in operations {
            let callStarted = ContinuousClock.now
            outcome.count += try await operation.apply(to: logbook)
            outcome.latency.record(ContinuousClock.now - callStarted)
        }
        return outcome
    }

    /// `call(_:_:)` on the main actor.
    @MainActor static func callFromMainActor(
        _ operations: [StandardWorkload.Operation], _ logbook: Logbook
    ) async throws -> AppendOutcome {
        try await call(operations, logbook)
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
    /// Logbook; returns the changes made and the seconds taken.
    func writeInBatches(_ batches: [[LocalWrite]]) async throws -> (Int, Double) {
        let logbook = try freshLogbook(.buffered)
        let started = ContinuousClock.now
        var made = 0
        for batch in batches { made += try await logbook.write(batch).count }
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
