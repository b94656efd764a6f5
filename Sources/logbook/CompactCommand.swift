import ArgumentParser
import Foundation
import Logbook
import LogbookBench

/// `logbook compact DIR [--dry-run] [--throttle MB/s]`.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Drop superseded changes from the sealed segments.",
        discussion: """
            Keeps each (record, column)'s CRDT winner and every live tombstone, drops what they \
            supersede, merges small neighbouring segments, and swaps the result in crash-safely. \
            Offsets keep their numbers. Only sealed segments are rewritten, so the active \
            segment (where every record of a log under the segment size sits) is sealed first \
            and compacted with them, unless --keep-active is given; --dry-run seals nothing. \
            Tombstones themselves are removed only by tombstone GC (`logbook gc`).
            """)

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions
    @Flag(help: "Report what would be removed; write nothing.")
    var dryRun = false
    @Flag(help: "Leave the active segment unsealed: compact the sealed segments only.")
    var keepActive = false
    @Option(help: "Limit reading and writing to this many megabytes per second.")
    var throttle: Double?
    @Option(help: "Rewrite only when at least this fraction of sealed records is superseded.")
    var dirtyRatio = 0.0
    @Option(help: "Compress the output with LZ4 HC at this level (1-12); default fast LZ4.")
    var hc: Int32?
    @Option(
        help: """
            Threads for finding the winners (each reads the whole log and keeps a share of the \
            records); default: the processor count, at most 4.
            """)
    var threads: Int?

    func validate() throws {
        if let threads, !(1...64).contains(threads) {
            throw ValidationError("--threads must be within 1...64")
        }
        if let throttle, throttle <= 0 { throw ValidationError("--throttle must be positive") }
        guard (0...1).contains(dirtyRatio) else {
            throw ValidationError("--dirty-ratio must be within 0...1")
        }
        if let hc, !(1...12).contains(hc) { throw ValidationError("--hc must be within 1...12") }
    }

    func run() throws {
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true,
            snapshots: dryRun ? .loadOnly : SnapshotPolicy())
        var options = CompactionOptions()
        options.dryRun = dryRun
        options.sealing = keepActive ? .never : .always
        options.dirtyRatioMin = dirtyRatio
        options.bytesPerSecondMax = throttle.map { Int64($0 * 1_000_000) }
        options.hcLevel = hc
        if let threads { options.threads = threads }
        let bar = PhasedProgressBar(label: "compact")
        options.progress = bar?.maintenanceProgress
        do {
            let report = try logbook.compact(options)
            bar?.end()
            try close(logbook)
            try output.print(
                CompactReport(directory: target.directory, dryRun: dryRun, compaction: report))
        } catch {
            throw exitWithError(error)
        }
    }
}
