import ArgumentParser
import Foundation
import Logbook
import LogbookBench

/// `logbook gc DIR [--dry-run] [--retention SECONDS]`.
struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove settled deletions (tombstone GC), when every peer has seen them.",
        discussion: """
            A tombstone is removed, with whatever it shadows, only when every registered peer \
            (`logbook peers`) has acknowledged it, this node has pulled each peer's log past \
            what that peer had logged by then, and it is older than the retention time. A \
            node that synced with this one but is not registered blocks GC. A collected \
            record stays fenced (local writes refused) until every peer has collected it \
            too. Pulls from below the new history start get "snapshot required". \
            The retention clock starts when a GC run first sees a tombstone in the log, so \
            with the default retention the first run only starts the clock. \
            See docs/maintenance.md.
            """)

    @OptionGroup var target: DirectoryArgument
    @OptionGroup var output: OutputOptions
    @Flag(help: "Report what would be removed; change nothing.")
    var dryRun = false
    @Option(help: "Collect only tombstones at least this many seconds old (default one day).")
    var retention: Double = 86_400
    @Option(help: "Limit the rewrite to this many megabytes per second.")
    var throttle: Double?

    func validate() throws {
        guard retention >= 0 else { throw ValidationError("--retention must not be negative") }
        if let throttle, throttle <= 0 { throw ValidationError("--throttle must be positive") }
    }

    func run() throws {
        let logbook = try openLogbook(
            target.directory, durability: .buffered, progress: true,
            snapshots: dryRun ? .loadOnly : SnapshotPolicy())
        var options = TombstoneCollectionOptions()
        options.dryRun = dryRun
        options.retentionSeconds = retention
        options.bytesPerSecondMax = throttle.map { Int64($0 * 1_000_000) }
        let bar = PhasedProgressBar(label: "gc")
        options.progress = bar?.maintenanceProgress
        do {
            let peers = try PeerLedger(directory: target.directory)
            let report = try logbook.collectTombstones(peers: peers, options)
            bar?.end()
            try close(logbook)
            try output.print(
                CollectReport(directory: target.directory, dryRun: dryRun, collection: report))
        } catch {
            throw exitWithError(error)
        }
    }
}
