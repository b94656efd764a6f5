import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookWorkloads

extension LogBenchmark {
    /// SQLite and JSON doing the same work on the same changes, in this process.
    func baselineFigures(_ changes: [Change<String, String, Value>]) async throws -> [BenchFigure] {
        let sqlite = SQLiteBaseline(path: directory + "/baseline.sqlite")
        var written = (seconds: 0.0, bytes: Int64(0))
        progress("baseline: SQLite append")
        let (appendSeconds, appendPeak) = try await measure(runs: runs) {
            written = try sqlite.append(changes)
            return written.seconds
        }
        var replayed = 0
        progress("baseline: SQLite replay")
        let (replaySeconds, replayPeak) = try await measure(runs: runs) {
            let (seconds, count) = try sqlite.replay()
            replayed = count
            return seconds
        }
        let json = JSONBaseline(path: directory + "/baseline.json")
        var jsonBytes: Int64 = 0
        progress("baseline: JSON change list")
        let (jsonWriteSeconds, jsonWritePeak) = try await measure(runs: runs) {
            let (seconds, bytes) = try json.appendChangeList(changes)
            jsonBytes = bytes
            return seconds
        }
        let (jsonReadSeconds, jsonReadPeak) = try await measure(runs: runs) {
            try json.replayChangeList().seconds
        }
        progress("baseline: JSON whole state")
        let state = try json.roundTripState(of: changes)
        let count = Double(changes.count)
        return [
            BenchFigure(
                system: "SQLite", name: "append: INSERT, WAL, 10k per transaction", kind: "append",
                changesPerSecond: count / appendSeconds,
                diskMegabytesPerSecond: Double(written.bytes) / appendSeconds / 1e6,
                bytesPerChange: Double(written.bytes) / count, peakMegabytes: appendPeak,
                note: "synchronous=NORMAL"),
            BenchFigure(
                system: "SQLite", name: "replay: full scan into the CRDT", kind: "replay",
                changesPerSecond: Double(replayed) / replaySeconds, peakMegabytes: replayPeak,
                note: "ORDER BY rowid"),
            BenchFigure(
                system: "JSON", name: "append: encode + write the change list", kind: "append",
                changesPerSecond: count / jsonWriteSeconds,
                diskMegabytesPerSecond: Double(jsonBytes) / jsonWriteSeconds / 1e6,
                bytesPerChange: Double(jsonBytes) / count, peakMegabytes: jsonWritePeak,
                note: "JSONEncoder, crdt-lite's Swift form"),
            BenchFigure(
                system: "JSON", name: "replay: read + decode + apply the change list",
                kind: "replay",
                changesPerSecond: count / jsonReadSeconds, peakMegabytes: jsonReadPeak,
                note: "JSONDecoder"),
            BenchFigure(
                system: "JSON", name: "whole state: encode + write, then read + decode",
                changesPerSecond: count / (state.encode + state.decode),
                bytesPerChange: Double(state.bytes) / count,
                note: String(
                    format: "encode %.2f s, decode %.2f s, %@", state.encode, state.decode,
                    formatBytes(state.bytes))),
        ]
    }

    /// What no store can beat here: LZ4 decompression of the same payloads, the disk's
    /// fsync rate, and the rounds the runtime lets the group-commit figure's writers make
    /// (at `changesPerCall`, the workload's).
    func ceilingFigures(changes: Int, changesPerCall: Double) async throws -> [BenchFigure] {
        progress("ceilings")
        let stored = try StoredFrames(logAt: logDirectory)
        let rawBytes = stored.rawBytes
        var samples: [Double] = []
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        for _ in 0..<runs {
            let started = ContinuousClock.now
            stored.decompressAll(into: &output)
            samples.append((ContinuousClock.now - started).seconds)
        }
        let lz4Seconds = median(samples)
        let fsyncRate = try measureFdatasyncRate(directory: directory)
        let zeroFilledFsyncRate = try measureFdatasyncRate(
            directory: directory, zeroFillAhead: Durability.groupCommit.defaultZeroFillAheadBytes)
        let rounds = await measureTaskRoundTrips(tasks: writers)
        var commandFigure: [BenchFigure] = []
        if let commandSeconds = try lz4CommandSeconds() {
            commandFigure.append(
                BenchFigure(
                    system: "ceiling", name: "lz4 -dc command over the segments",
                    changesPerSecond: Double(changes) / commandSeconds,
                    rawMegabytesPerSecond: Double(rawBytes) / commandSeconds / 1e6,
                    note: "Debian's lz4, includes process start"))
        }
        return commandFigure + [
            BenchFigure(
                system: "ceiling", name: "liblz4 decompression of the same payloads",
                changesPerSecond: Double(changes) / lz4Seconds,
                rawMegabytesPerSecond: Double(rawBytes) / lz4Seconds / 1e6,
                note: "no checksum, no decode"),
            BenchFigure(
                system: "ceiling", name: "fdatasync of 4 KiB appends", changesPerSecond: 0,
                fsyncsPerSecond: fsyncRate,
                note: "the bound on any durable commit rate of a file that grows"),
            BenchFigure(
                system: "ceiling", name: Self.zeroFilledFsyncCeilingName, changesPerSecond: 0,
                fsyncsPerSecond: zeroFilledFsyncRate,
                note: "1 MiB of zeros kept written ahead, as the log does when it syncs every "
                    + "write: the bound on the durable appends above"),
            BenchFigure(
                system: "ceiling", name: Self.taskRoundTripCeilingName(writers: writers),
                changesPerSecond: Double(writers) * changesPerCall * rounds,
                note: String(format: "%.0f rounds/s, %.1f µs a round", rounds, 1e6 / rounds)
                    + ", no append, no disk: the most the group commit's \(writers) writers "
                    + "can reach, each resumed and suspended once a round"),
        ]
    }

    /// The ceiling the durable appends are held to: syncs over zeros written ahead, which
    /// is how the log writes with `.groupCommit` and `.fsyncEachAppend`.
    static let zeroFilledFsyncCeilingName = "fdatasync of 4 KiB writes over zeros"

    /// The ceiling the runtime puts on group commit with `writers` writers.
    static func taskRoundTripCeilingName(writers: Int) -> String {
        "\(writers) tasks suspended, then resumed together"
    }

    /// Adds to the group-commit figure with many writers the bound its settings allow:
    /// writers × changes per call × the disk's fdatasyncs per second, measured the way the
    /// log syncs (over zeros written ahead; each writer waits for the sync that covers its
    /// call), and how much of it was reached.
    func annotateGroupCommitBound(_ figures: inout [BenchFigure], changesPerCall: Double) {
        guard
            let fsyncs = figures.first(where: {
                $0.system == "ceiling" && $0.name == Self.zeroFilledFsyncCeilingName
            }
            )?.fsyncsPerSecond,
            let index = figures.firstIndex(where: {
                $0.name.hasPrefix("append .groupCommit, \(writers) writers")
            })
        else { return }
        let bound = groupCommitBound(
            writers: writers, changesPerCall: changesPerCall, fdatasyncsPerSecond: fsyncs)
        figures[index].boundChangesPerSecond = bound
        figures[index].note +=
            "; bound \(formatCount(bound)) changes/s (\(writers) writers × "
            + String(format: "%.2f", changesPerCall) + " changes per call × "
            + String(format: "%.0f", fsyncs) + " fdatasyncs/s), "
            + String(format: "%.0f%%", 100 * figures[index].changesPerSecond / bound) + " reached"
        if let rounds = figures.first(where: {
            $0.system == "ceiling" && $0.name == Self.taskRoundTripCeilingName(writers: writers)
        }), rounds.changesPerSecond > 0 {
            // A sync carries every writer only if the writers it resumed are back before the
            // next one starts: the round trip against the sync says how far that is possible.
            let roundMicroseconds = 1e6 * Double(writers) * changesPerCall / rounds.changesPerSecond
            figures[index].note += String(
                format: "; the runtime's round trip of %d tasks takes %.0f µs, a sync %.0f µs",
                writers, roundMicroseconds, 1e6 / fsyncs)
        }
    }

    /// Median time of `lz4 -dc` over every segment, when the command is installed.
    private func lz4CommandSeconds() throws -> Double? {
        guard
            let lz4 = ["/usr/bin/lz4", "/usr/local/bin/lz4"].first(
                where: FileManager.default.isExecutableFile)
        else {
            return nil
        }
        let segments = try FileManager.default.contentsOfDirectory(atPath: logDirectory).filter {
            $0.hasSuffix(".seg")
        }.sorted()
        var samples: [Double] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            for segment in segments {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: lz4)
                process.arguments = ["-dc", logDirectory + "/" + segment]
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
            }
            samples.append((ContinuousClock.now - started).seconds)
        }
        return median(samples)
    }
}
