import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting

/// The log benchmark behind `logbook bench log`: the standard workload appended in each
/// durability mode, then replayed (decode only, and into the CRDT), with LZ4's own
/// decompression of the same payloads as the ceiling. Every figure is a median over runs.
struct LogBenchmark {
    struct Result: Codable {
        var name: String
        var changesPerSecond: Double
        var rawMegabytesPerSecond: Double?
        var note: String
    }

    let directory: String
    let records: Int
    let changes: Int
    let runs: Int
    let writers: Int
    /// Skip the append figures (write the log once, then measure reading it).
    var readOnly = false
    var progress: (String) -> Void

    /// Pre-generates the operations so the generator's cost stays out of the timings.
    func operations() -> [StandardWorkload.Operation] {
        var workload = StandardWorkload(recordCount: records, seed: 42)
        var operations: [StandardWorkload.Operation] = []
        var produced = 0
        while produced < changes {
            let operation = workload.next()
            if case .upsert(_, let fields) = operation {
                produced += fields.count
            } else {
                produced += 1
            }
            operations.append(operation)
        }
        return operations
    }

    func run() async throws -> [Result] {
        let operations = operations()
        var results: [Result] = []
        if readOnly {
            let (written, _) = try await append(operations, durability: .buffered, writers: 1)
            return try readFigures(written: written)
        }
        var appendSeconds: [Double] = []
        var written = 0
        for run in 0..<runs {
            progress("append .buffered, 1 writer (run \(run + 1)/\(runs))")
            let (count, seconds) = try await append(operations, durability: .buffered, writers: 1)
            appendSeconds.append(seconds)
            written = count
        }
        results.append(
            Result(
                name: "append .buffered, 1 writer",
                changesPerSecond: Double(written) / median(appendSeconds),
                note: "\(written) changes"))

        // The same changes arriving in bulk, as a sync or an import delivers them: made on an
        // in-memory replica first (untimed), then merged 10,000 per call.
        let bulk = bulkChanges(operations)
        var bulkSeconds: [Double] = []
        for run in 0..<runs {
            progress("append .buffered, bulk merge (run \(run + 1)/\(runs))")
            bulkSeconds.append(try await mergeInBulk(bulk))
        }
        results.append(
            Result(
                name: "append .buffered, merge 10k changes/call",
                changesPerSecond: Double(bulk.count) / median(bulkSeconds),
                note: "\(bulk.count) changes"))

        var memorySeconds: [Double] = []
        for run in 0..<runs {
            progress("in-memory CRDT merge, no log (run \(run + 1)/\(runs))")
            let replica = CRDT<String, String, Value>(nodeId: 1)
            let started = ContinuousClock.now
            var start = 0
            while start < bulk.count {
                let end = min(start + 10_000, bulk.count)
                replica.mergeChanges(Array(bulk[start..<end]))
                start = end
            }
            memorySeconds.append((ContinuousClock.now - started).seconds)
        }
        results.append(
            Result(
                name: "reference: in-memory CRDT merge, no log",
                changesPerSecond: Double(bulk.count) / median(memorySeconds),
                note: "the CRDT alone"))

        var groupSeconds: [Double] = []
        var syncs = 0
        var groupWritten = 0
        for run in 0..<runs {
            progress("append .groupCommit, \(writers) writers (run \(run + 1)/\(runs))")
            let (count, seconds, syncCount) = try await appendConcurrently(
                operations, writers: writers)
            groupSeconds.append(seconds)
            groupWritten = count
            syncs = syncCount
        }
        let groupMedian = median(groupSeconds)
        results.append(
            Result(
                name: "append .groupCommit, \(writers) writers",
                changesPerSecond: Double(groupWritten) / groupMedian,
                note:
                    "\(syncs) fdatasyncs, \(String(format: "%.0f", Double(syncs) / groupMedian))/s")
        )

        // The same 64 writers when each append carries a whole 5-column record (the
        // workload's insert phase): throughput per sync grows with the changes per call.
        let inserts = Array(operations.prefix(records))
        var insertSeconds: [Double] = []
        var insertWritten = 0
        for run in 0..<runs {
            progress(
                "append .groupCommit, \(writers) writers, 5-column inserts (run \(run + 1)/\(runs))"
            )
            let (count, seconds, _) = try await appendConcurrently(inserts, writers: writers)
            insertSeconds.append(seconds)
            insertWritten = count
        }
        results.append(
            Result(
                name: "append .groupCommit, \(writers) writers, 5 changes/call",
                changesPerSecond: Double(insertWritten) / median(insertSeconds),
                note: "\(insertWritten) changes, inserts only"))

        // The buffered log written last is the one every read benchmark uses.
        _ = try await append(operations, durability: .buffered, writers: 1)
        return results + (try readFigures(written: written))
    }

    /// Size on disk, decode-only replay, open, and the LZ4 ceilings, on the log in `directory`.
    private func readFigures(written: Int) throws -> [Result] {
        var results: [Result] = []
        let size = try logSize()
        results.append(
            Result(
                name: "on disk", changesPerSecond: 0,
                note: String(
                    format: "%.1f bytes per change (%@)", Double(size.bytes) / Double(written),
                    formatBytes(size.bytes))))
        var decodeSeconds: [Double] = []
        var decoded = (changes: 0, rawBytes: Int64(0))
        for run in 0..<runs {
            progress("replay, decode only (run \(run + 1)/\(runs))")
            let started = ContinuousClock.now
            decoded = try decodeOnly()
            decodeSeconds.append((ContinuousClock.now - started).seconds)
        }
        let decodeMedian = median(decodeSeconds)
        results.append(
            Result(
                name: "replay: read, checksum, decompress, decode",
                changesPerSecond: Double(decoded.changes) / decodeMedian,
                rawMegabytesPerSecond: Double(decoded.rawBytes) / decodeMedian / 1e6,
                note: "one core"))

        var openSeconds: [Double] = []
        for run in 0..<runs {
            progress("open: replay into the CRDT (run \(run + 1)/\(runs))")
            var options = LogbookOptions()
            options.durability = .buffered
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: directory, options: options)
            openSeconds.append((ContinuousClock.now - started).seconds)
            try logbook.close()
        }
        results.append(
            Result(
                name: "open: replay + rebuild CRDT",
                changesPerSecond: Double(decoded.changes) / median(openSeconds),
                rawMegabytesPerSecond: Double(decoded.rawBytes) / median(openSeconds) / 1e6,
                note: "one core"))

        var lz4Seconds: [Double] = []
        for _ in 0..<runs {
            progress("ceiling: LZ4 decompression of the same payloads")
            lz4Seconds.append(try lz4Only())
        }
        results.append(
            Result(
                name: "ceiling: liblz4 decompression alone",
                changesPerSecond: Double(decoded.changes) / median(lz4Seconds),
                rawMegabytesPerSecond: Double(decoded.rawBytes) / median(lz4Seconds) / 1e6,
                note: "no checksum, no decode"))
        if let commandSeconds = try lz4Command() {
            results.append(
                Result(
                    name: "ceiling: lz4 -dc command",
                    changesPerSecond: Double(decoded.changes) / commandSeconds,
                    rawMegabytesPerSecond: Double(decoded.rawBytes) / commandSeconds / 1e6,
                    note: "includes process start, output to /dev/null"))
        }
        return results
    }

    private func freshLogbook(_ durability: Durability) throws -> Logbook {
        try? FileManager.default.removeItem(atPath: directory)
        var options = LogbookOptions()
        options.durability = durability
        return try Logbook.open(directory: directory, nodeId: 1, options: options)
    }

    private func append(
        _ operations: [StandardWorkload.Operation], durability: Durability, writers: Int
    ) async throws -> (Int, Double) {
        let logbook = try freshLogbook(durability)
        let started = ContinuousClock.now
        var count = 0
        for operation in operations { count += try await Self.apply(operation, to: logbook) }
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        try logbook.close()
        return (count, seconds)
    }

    /// The workload's changes, made by an in-memory replica of another node.
    private func bulkChanges(_ operations: [StandardWorkload.Operation]) -> [Change<
        String, String, Value
    >] {
        let source = CRDT<String, String, Value>(nodeId: 2)
        var changes: [Change<String, String, Value>] = []
        changes.reserveCapacity(changes.count)
        for operation in operations {
            switch operation {
            case .upsert(let recordId, let fields):
                changes += source.insertOrUpdate(
                    recordId, fields: fields.map { ($0.0, $0.1.value) })
            case .deleteField(let recordId, let column):
                if let change = source.deleteField(recordId, fieldName: column) {
                    changes.append(change)
                }
            case .deleteRecord(let recordId):
                if let change = source.deleteRecord(recordId) { changes.append(change) }
            }
        }
        return changes
    }

    private func mergeInBulk(_ changes: [Change<String, String, Value>]) async throws -> Double {
        let logbook = try freshLogbook(.buffered)
        let started = ContinuousClock.now
        var start = 0
        while start < changes.count {
            let end = min(start + 10_000, changes.count)
            try await logbook.merge(Array(changes[start..<end]))
            start = end
        }
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        try logbook.close()
        return seconds
    }

    private func appendConcurrently(_ operations: [StandardWorkload.Operation], writers: Int)
        async throws -> (Int, Double, Int)
    {
        let logbook = try freshLogbook(.groupCommit)
        let started = ContinuousClock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var count = 0
                    for index in stride(from: writer, to: operations.count, by: writers) {
                        count += try await Self.apply(operations[index], to: logbook)
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - started).seconds
        let syncs = logbook.groupCommitSyncCount
        try logbook.close()
        return (count, seconds, syncs)
    }

    private static func apply(_ operation: StandardWorkload.Operation, to logbook: Logbook)
        async throws -> Int
    {
        switch operation {
        case .upsert(let recordId, let fields):
            return try await logbook.insertOrUpdate(
                recordId, fields: fields.map { ($0.0, $0.1.value) }
            ).count
        case .deleteField(let recordId, let column):
            return try await logbook.deleteField(recordId, fieldName: column) == nil ? 0 : 1
        case .deleteRecord(let recordId):
            return try await logbook.deleteRecord(recordId) == nil ? 0 : 1
        }
    }

    private func logSize() throws -> (bytes: Int64, segments: Int) {
        let log = try Log.open(directory: directory, createIfMissing: false)
        defer { try? log.close() }  // read-only use
        return (log.sizeBytes, log.segmentCount)
    }

    /// Reads, checks, decompresses and decodes every record, without the CRDT.
    private func decodeOnly() throws -> (changes: Int, rawBytes: Int64) {
        let log = try Log.open(directory: directory, createIfMissing: false)
        defer { try? log.close() }  // read-only use
        let cursor = try log.makeCursor(from: 0)
        var count = 0
        var rawBytes: Int64 = 0
        var change = Change<String, String, Value>(
            recordId: "", colName: nil, value: nil, colVersion: 0, dbVersion: 0, nodeId: 0,
            localDbVersion: 0)
        while try cursor.next() {
            rawBytes += Int64(cursor.header?.rawLength ?? 0)
            cursor.forEachRecord { _, bytes in
                if case .change = ChangeRecordCodec.decode(bytes, into: &change) { count += 1 }
            }
        }
        return (count, rawBytes)
    }

    /// Decompresses every batch's LZ4 frame from memory: the ceiling for the decode path.
    private func lz4Only() throws -> Double {
        var frames: [(frame: [UInt8], rawLength: Int)] = []
        let log = try Log.open(directory: directory, createIfMissing: false)
        let cursor = try log.makeCursor(from: 0)
        while try cursor.next() {
            guard let header = cursor.header else { continue }
            frames.append(
                (Array(try cursor.storedBytes().dropFirst(BatchHeader.size)), Int(header.rawLength))
            )
        }
        try log.close()
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        let started = ContinuousClock.now
        for (frame, rawLength) in frames {
            output.removeAll(keepingCapacity: true)
            _ = frame.withUnsafeBytes { LZ4Frame.decode($0, rawLength: rawLength, into: &output) }
        }
        return (ContinuousClock.now - started).seconds
    }

    /// Times `lz4 -dc` over every segment, when the command is installed.
    private func lz4Command() throws -> Double? {
        guard
            let lz4 = ["/usr/bin/lz4", "/usr/local/bin/lz4"].first(
                where: FileManager.default.isExecutableFile)
        else { return nil }
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".seg")
        }.sorted()
        var samples: [Double] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            for segment in segments {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: lz4)
                process.arguments = ["-dc", directory + "/" + segment]
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
            }
            samples.append((ContinuousClock.now - started).seconds)
        }
        return median(samples)
    }
}

/// The median of a non-empty list (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
