import Benchmark
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import LogbookWorkloads

// Logbook's suites under package-benchmark, with the baselines in the same run: SQLite
// through GRDB (LogbookBench's `SQLiteBaseline`, the one `logbook bench` uses: a changes
// table in WAL mode, batched transactions; replay by a full scan into the same CRDT) and
// crdt-lite-style JSON. Workload: docs/benchmarks.md (seed 42). Each
// iteration does a fixed amount of work, so wall clock compares across suites; memory is
// the measured section's own peak growth (`ResidentGrowth`), not the workload's.

let workload = BenchmarkWorkload(records: 20_000, changes: 200_000)

let benchmarks: @Sendable () -> Void = {
    // Twenty samples each, however long each takes (the time limit is a backstop), so
    // every p90 has samples beneath it. No throughput: a whole-workload iteration runs a
    // few times a second, and whole iterations per second say less than the wall clock.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, ResidentGrowth.metric],
        maxDuration: .seconds(120), maxIterations: 20,
        // Tolerances for `thresholds check`: this project's shared VM moves timings by
        // ±30% between runs, so time gets 50%; allocations and memory 25%.
        thresholds: [
            .wallClock: .init(relative: [.p90: 50]),
            .mallocCountTotal: .init(relative: [.p90: 25]),
            ResidentGrowth.metric: .init(relative: [.p90: 25]),
        ])
    // For suites whose measured section adds under a MiB, or reuses memory its earlier
    // iterations left resident: their growth is noise (0-700 KiB from run to run), which a
    // relative tolerance cannot check.
    let timeAndAllocations = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal])

    // MARK: Append

    for durability in [Durability.buffered, .fsyncEachAppend, .groupCommit] {
        let operationCount = durability == .buffered ? 10_000 : 200
        // Names without spaces, dots or slashes: package-benchmark writes threshold files with
        // spaces replaced but reads them back by the raw name.
        Benchmark(
            "append-\(durability.rawValue)-1-writer-\(operationCount)-ops",
            configuration: durability == .buffered ? .init() : timeAndAllocations
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let logbook = try workload.freshLogbook(durability)
                try await ResidentGrowth.measure(benchmark) {
                    for operation in workload.operations.prefix(operationCount) {
                        _ = try await operation.apply(to: logbook)
                    }
                    try logbook.sync()
                }
                try logbook.close()
            }
        }
    }

    // The same 10,000 operations as the buffered figure above, made in one call
    // (`Logbook.write`): what batching saves over a call per write.
    Benchmark("append-buffered-10000-ops-in-one-write-call") { benchmark in
        let writes = workload.operations.prefix(10_000).map(\.localWrite)
        for _ in benchmark.scaledIterations {
            let logbook = try workload.freshLogbook(.buffered)
            try await ResidentGrowth.measure(benchmark) {
                blackHole(try await logbook.write(writes).count)
                try logbook.sync()
            }
            try logbook.close()
        }
    }

    // The same 10,000 operations on a bare replica state, as the engine's writes make them
    // under its lock (an upsert's changes written over the array the previous one left):
    // the ceilings of the two buffered figures above (one call each, then
    // one `ReplicaState.write`).
    Benchmark("local-writes-ReplicaState-alone-10000-ops-one-call-each") { benchmark in
        let operations = workload.operations.prefix(10_000)
        for _ in benchmark.scaledIterations {
            let state = ReplicaState(nodeId: 1)
            try ResidentGrowth.measure(benchmark) {
                var made = 0
                var changes: [Change<String, String, Value>] = []
                for operation in operations {
                    made += try operation.apply(to: state, reusing: &changes)
                }
                blackHole(made)
            }
        }
    }
    Benchmark("local-writes-ReplicaState-alone-10000-ops-in-one-call") { benchmark in
        let writes = workload.operations.prefix(10_000).map(\.localWrite)
        for _ in benchmark.scaledIterations {
            let state = ReplicaState(nodeId: 1)
            ResidentGrowth.measure(benchmark) {
                let outcome = state.write(
                    writes, refusingColumnVersionsFrom: ChangeLimits.versionMax)
                blackHole(outcome.changes.count)
            }
        }
    }

    let groupCommitOperations = Array(workload.operations.prefix(6400))
    Benchmark("append-groupCommit-64-writers-6400-ops", configuration: timeAndAllocations) {
        benchmark in
        for _ in benchmark.scaledIterations {
            let logbook = try workload.freshLogbook(.groupCommit)
            try await ResidentGrowth.measure(benchmark) {
                _ = try await StandardWorkload.apply(
                    groupCommitOperations, to: logbook, writers: 64)
            }
            try logbook.close()
        }
    }

    // The same 64 writers beside the bound their settings allow (writers × changes per call
    // × fdatasyncs per second over zeros written ahead, as the log syncs; the figure
    // `logbook bench log` reports as "reached"), the disk's rate measured in the same
    // iteration just before: the share reached, in percent, and the rate it was held to.
    let shareOfBound = BenchmarkMetric.custom(
        "group commit % of bound", polarity: .prefersLarger, useScalingFactor: false)
    let syncRate = BenchmarkMetric.custom(
        "fdatasyncs/s over zeros", polarity: .prefersLarger, useScalingFactor: false)
    Benchmark(
        "append-groupCommit-64-writers-share-of-bound",
        configuration: .init(
            metrics: [.wallClock, shareOfBound, syncRate], maxIterations: 10,
            thresholds: [
                .wallClock: .init(relative: [.p90: 50]),
                // Both follow the disk's fdatasync rate, which the VM's neighbours move:
                // 35 % and 16 % of the bound in two runs five minutes apart.
                shareOfBound: .init(relative: [.p90: 100]),
                syncRate: .init(relative: [.p90: 100]),
            ])
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let fdatasyncs = try measureFdatasyncRate(
                directory: ScratchDirectory.fresh("fsync-probe-bound"),
                zeroFillAhead: Durability.groupCommit.defaultZeroFillAheadBytes, seconds: 0.25)
            let logbook = try workload.freshLogbook(.groupCommit)
            let started = ContinuousClock.now
            benchmark.startMeasurement()
            let changes = try await StandardWorkload.apply(
                groupCommitOperations, to: logbook, writers: 64)
            benchmark.stopMeasurement()
            let elapsed = ContinuousClock.now - started
            try logbook.close()
            let seconds = elapsed.secondsValue
            let bound = groupCommitBound(
                writers: 64,
                changesPerCall: Double(changes) / Double(groupCommitOperations.count),
                fdatasyncsPerSecond: fdatasyncs)
            // No trap on a degenerate run: nothing written, or a clock that did not move.
            let share = 100 * Double(changes) / seconds / bound
            benchmark.measurement(shareOfBound, share.isFinite ? Int(share) : 0)
            benchmark.measurement(syncRate, Int(fdatasyncs))
        }
    }

    // MARK: Replay

    Benchmark(
        "replay-decode-only-\(workload.changes.count)-changes", configuration: timeAndAllocations
    ) { benchmark in
        let directory = try workload.writtenLog()
        for _ in benchmark.scaledIterations {
            try ResidentGrowth.measure(benchmark) {
                let log = try Log.open(directory: directory, createIfMissing: false)
                let cursor = try log.makeCursor(from: 0)
                var change = Change<String, String, Value>(
                    recordId: "", colName: nil, value: nil, colVersion: 0, dbVersion: 0,
                    nodeId: 0, localDbVersion: 0)
                var count = 0
                while try cursor.next() {
                    cursor.forEachRecord { _, bytes in
                        if case .change = ChangeRecordCodec.decode(bytes, into: &change) {
                            count += 1
                        }
                    }
                }
                blackHole(count)
                try log.close()
            }
        }
    }

    // The same changes merged in memory, no log: the crdt-lite-compatible CRDT, then the
    // state specialized for the engine. In chunks of 10,000, cut outside the timing.
    let mergeChunks = stride(from: 0, to: workload.changes.count, by: 10_000).map { start in
        Array(workload.changes[start..<min(start + 10_000, workload.changes.count)])
    }
    Benchmark("merge-in-memory-CRDT-\(workload.changes.count)-changes") { benchmark in
        for _ in benchmark.scaledIterations {
            ResidentGrowth.measure(benchmark) {
                let replica = CRDT<String, String, Value>(nodeId: 1)
                for chunk in mergeChunks { blackHole(replica.mergeChanges(chunk).count) }
            }
        }
    }
    Benchmark("merge-in-memory-ReplicaState-\(workload.changes.count)-changes") { benchmark in
        for _ in benchmark.scaledIterations {
            ResidentGrowth.measure(benchmark) {
                let replica = ReplicaState(nodeId: 1)
                for chunk in mergeChunks { blackHole(replica.merge(chunk).count) }
            }
        }
    }

    Benchmark("replay-open-into-CRDT-\(workload.changes.count)-changes") { benchmark in
        let directory = try workload.writtenLog()
        var options = LogbookOptions()
        options.durability = .buffered
        options.snapshots = .off  // the whole log every time
        for _ in benchmark.scaledIterations {
            try ResidentGrowth.measure(benchmark) {
                let logbook = try Logbook.open(directory: directory, options: options)
                blackHole(logbook.nextOffset)
                try logbook.close()
            }
        }
    }

    // The same log opened from a replica snapshot covering all of it (no tail).
    Benchmark("open-from-snapshot-\(workload.changes.count)-changes") { benchmark in
        let directory = try workload.writtenLog(fresh: true)
        var options = LogbookOptions()
        options.durability = .buffered
        options.snapshots.onCloseAfterBytes = nil
        let writer = try Logbook.open(directory: directory, options: options)
        try writer.writeSnapshot()
        try writer.close()
        for _ in benchmark.scaledIterations {  // writing the log and its snapshot is setup
            try ResidentGrowth.measure(benchmark) {
                let logbook = try Logbook.open(directory: directory, options: options)
                precondition(logbook.snapshotLoad.file != nil, "no snapshot loaded")
                blackHole(logbook.nextOffset)
                try logbook.close()
            }
        }
    }

    Benchmark("compaction-\(workload.changes.count)-changes") { benchmark in
        for _ in benchmark.scaledIterations {
            try measureCompaction(of: try workload.writtenLog(fresh: true), benchmark)
        }
    }

    // Compaction of a log where about a third of the changes tie on column version with the
    // winner before them (`TiedWorkload`: two nodes editing the same columns), settled in
    // memory; written once, each iteration compacts a fresh copy.
    let tiedChanges = 200_000
    // Time and allocations: its growth reuses what the setup's copy left resident (16.5 and
    // 2.1 MB in two runs).
    Benchmark("compaction-with-ties-\(tiedChanges)-changes", configuration: timeAndAllocations) {
        benchmark in
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 1 << 20
        let tied = ScratchDirectory.fresh("tied-log")
        let writer = try Logbook.open(directory: tied, nodeId: 1, options: options)
        try await TiedWorkload(records: 20_000, changes: tiedChanges).write(into: writer)
        try writer.close()
        for _ in benchmark.scaledIterations {
            let copy = ScratchDirectory.fresh("tied-log-copy")
            try FileManager.default.copyItem(atPath: tied, toPath: copy)
            try measureCompaction(of: copy, benchmark)
        }
    }

    // The workload's state as binary state pages (what `GET /snapshot?format=batches` sends
    // a new node), encoded and decoded back, beside the JSON baselines below.
    Benchmark("state-pages-binary-encode-and-decode-\(workload.changes.count)-changes") {
        benchmark in
        let replica = CRDT<String, String, Value>(nodeId: 1)
        replica.mergeChanges(workload.changes)
        let state = replica.getChangesSince(0)
        for _ in benchmark.scaledIterations {  // building the state is setup
            try ResidentGrowth.measure(benchmark) {
                let page = StatePageBatches.encode(state)
                blackHole(try StatePageBatches.decode(page.bytes, rawBytesMax: 1 << 30))
            }
        }
    }

    // MARK: Baselines

    Benchmark(
        "baseline-SQLite-GRDB-insert-\(workload.changes.count)-changes-WAL-10k-per-transaction",
        configuration: timeAndAllocations
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let path = ScratchDirectory.fresh("grdb.sqlite")
            try ResidentGrowth.measure(benchmark) {
                blackHole(try SQLiteBaseline(path: path).append(workload.changes))
            }
        }
    }

    Benchmark("baseline-SQLite-GRDB-full-scan-into-CRDT") { benchmark in
        let path = ScratchDirectory.fresh("grdb-read.sqlite")
        let baseline = SQLiteBaseline(path: path)
        _ = try baseline.append(workload.changes)
        for _ in benchmark.scaledIterations {
            try ResidentGrowth.measure(benchmark) { blackHole(try baseline.replay()) }
        }
    }

    Benchmark("baseline-JSON-encode-change-list") { benchmark in
        for _ in benchmark.scaledIterations {
            try ResidentGrowth.measure(benchmark) {
                blackHole(try JSONEncoder().encode(workload.changes))
            }
        }
    }

    Benchmark("baseline-JSON-decode-change-list-into-CRDT") { benchmark in
        let data = try JSONEncoder().encode(workload.changes)
        for _ in benchmark.scaledIterations {  // encoding the input is setup
            try ResidentGrowth.measure(benchmark) {
                let changes = try JSONDecoder().decode(
                    [Change<String, String, Value>].self, from: data)
                CRDT<String, String, Value>(nodeId: 1).restore(changes)
            }
        }
    }

    // MARK: Reading crdt-lite JSON (decode only, no CRDT)

    Benchmark("json-read-crdt-lite-array-swift-form-\(workload.changes.count)-changes") {
        benchmark in
        let data = try JSONEncoder().encode(workload.changes)
        for _ in benchmark.scaledIterations {  // encoding the input is setup
            try ResidentGrowth.measure(benchmark) {
                blackHole(try ChangeJSON.decodeArray(data, as: Change<String, String, Value>.self))
            }
        }
    }

    Benchmark("json-read-lines-rust-form-\(workload.changes.count)-changes") { benchmark in
        let data = try ChangeJSON.encodeLines(workload.changes, format: .rust)
        for _ in benchmark.scaledIterations {  // encoding the input is setup
            try ResidentGrowth.measure(benchmark) {
                blackHole(try ChangeJSON.decodeLines(data, as: Change<String, String, Value>.self))
            }
        }
    }

    Benchmark(
        "json-write-lines-rust-form-\(workload.changes.count)-changes",
        configuration: timeAndAllocations
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            try ResidentGrowth.measure(benchmark) {
                blackHole(try ChangeJSON.encodeLines(workload.changes, format: .rust))
            }
        }
    }

    // MARK: Ceilings

    Benchmark("ceiling-liblz4-decompression-of-log-payloads", configuration: timeAndAllocations) {
        benchmark in
        let frames = try workload.frames()
        var output: [UInt8] = []
        for _ in benchmark.scaledIterations {
            ResidentGrowth.measure(benchmark) { blackHole(frames.decompressAll(into: &output)) }
        }
    }

    // The file is made before the measurement: each iteration is one 4 KiB write and its
    // fdatasync, appending (the file grows) or over zeros written and synced before (the
    // sync the log makes with `.groupCommit` and `.fsyncEachAppend`, docs/decisions/0008).
    for overZeros in [false, true] {
        let name = overZeros ? "writes-over-zeros" : "append"
        // One 4 KiB write each: many samples, and a rate in thousands a second.
        Benchmark(
            "ceiling-fdatasync-4KiB-\(name)",
            configuration: .init(
                metrics: [.wallClock, .throughput], maxDuration: .seconds(3), maxIterations: 2000,
                thresholds: [
                    .wallClock: .init(relative: [.p90: 50]),
                    .throughput: .init(relative: [.p90: 50]),
                ])
        ) { benchmark in
            let handle = try ScratchDirectory.freshFile("fsync-probe-\(name)")
            if overZeros {
                try handle.write(contentsOf: Data(count: 1 << 20))
                guard fdatasync(handle.fileDescriptor) == 0 else {
                    throw CocoaError(.fileWriteUnknown)
                }
                try handle.seek(toOffset: 0)
            }
            let block = Data(repeating: 0x5A, count: 4096)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                try handle.write(contentsOf: block)
                guard fdatasync(handle.fileDescriptor) == 0 else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
            benchmark.stopMeasurement()
            try handle.close()
        }
    }

    // MARK: Seal

    sealBenchmarks()

    // MARK: Views

    searchBenchmarks()

    // MARK: Shipping

    shippingBenchmarks(workload)
}

/// One measured `Logbook.compact` of the log in `directory`, with no dirty-ratio threshold;
/// opening and closing it are not measured.
func measureCompaction(of directory: String, _ benchmark: Benchmark) throws {
    var options = LogbookOptions()
    options.durability = .buffered
    let logbook = try Logbook.open(directory: directory, options: options)
    var compaction = CompactionOptions()
    compaction.dirtyRatioMin = 0
    try ResidentGrowth.measure(benchmark) { blackHole(try logbook.compact(compaction)) }
    try logbook.close()
}
