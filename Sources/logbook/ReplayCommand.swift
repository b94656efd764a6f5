import ArgumentParser
import Logbook
import LogbookBench

/// `logbook replay DIR`: rebuilds the state from the log and reports the speed.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild the state from the log; print throughput and the state digest.",
        discussion:
            "Reads, checks, decompresses and decodes every batch and applies every change to a fresh CRDT, exactly as opening the Logbook does."
    )

    @OptionGroup var target: DirectoryArgument

    func run() throws {
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true, readOnly: true)
        let statistics = logbook.replayStatistics
        let seconds = max(statistics.seconds, 1e-9)
        print(
            "replayed \(statistics.changes) changes (\(statistics.records) records, \(statistics.batches) batches) in \(String(format: "%.3f", statistics.seconds)) s"
        )
        print(
            "  \(formatCount(Double(statistics.changes) / seconds)) changes/s, \(formatBytes(Int64(Double(statistics.rawBytes) / seconds)))/s raw, \(formatBytes(Int64(Double(statistics.storedBytes) / seconds)))/s on disk"
        )
        print(
            "state: \(logbook.records().count) live records, \(logbook.tombstoneCount()) tombstones, clock \(logbook.clock().currentTime())"
        )
        print("digest: \(logbook.stateDigest())")
        do { try logbook.close() } catch { throw exitWithError(error) }
    }
}
