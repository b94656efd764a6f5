import Foundation
import Logbook
import LogbookWorkloads

/// `logbook bench chat`: what an app sees in the build it runs in. Writes a chat history
/// (`ChatWorkload`: 100,000 messages, 49 MB of text) in calls of `write(_:)` of 100
/// messages, writes a replica snapshot and opens it from that. Run it from a debug
/// build and from a release build (`scripts/debug-release.sh` does both) to see what a
/// debug build costs: Xcode builds packages in debug while an app is developed.
struct ChatBenchmark {
    var directory: String
    var messages: Int
    var runs: Int
    var progress: (String) -> Void

    /// "debug build" or "release build", as the build that runs this was compiled.
    static var configuration: String {
        #if DEBUG
            "debug build"
        #else
            "release build"
        #endif
    }

    func run() async throws -> [BenchFigure] {
        let workload = ChatWorkload(messages: messages)
        let batches = workload.batches(of: 100)
        let textBytes = batches.joined().reduce(0) { total, write in
            guard case .insertOrUpdate(_, let fields) = write else { return total }
            return total + (fields.first { $0.0 == "text" }?.1.stringValue?.utf8.count ?? 0)
        }
        var options = LogbookOptions()
        options.durability = .buffered  // the code's cost, not the disk's syncs
        progress("chat: write \(messages) messages")
        let (writeSeconds, writePeak) = try await measure(runs: runs) {
            try? FileManager.default.removeItem(atPath: directory)
            let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
            let started = ContinuousClock.now
            for batch in batches { try await logbook.write(batch) }
            try logbook.sync()
            let seconds = (ContinuousClock.now - started).seconds
            _ = try logbook.writeSnapshot()  // what the open below loads
            try logbook.close()
            return seconds
        }
        progress("chat: open from the snapshot")
        var loadedFrom = ""
        let (openSeconds, openPeak) = try await measure(runs: runs) {
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: directory, options: options)
            let seconds = (ContinuousClock.now - started).seconds
            loadedFrom = logbook.snapshotLoad.file ?? "no snapshot: the whole log replayed"
            try logbook.close()
            return seconds
        }
        let build = Self.configuration
        return [
            BenchFigure(
                system: "Logbook", name: "chat: write \(messages) messages, \(build)",
                kind: "chat write", changesPerSecond: Double(messages) / writeSeconds,
                rawMegabytesPerSecond: Double(textBytes) / writeSeconds / 1e6,
                peakMegabytes: writePeak,
                note: String(
                    format: "%.2f s; write(_:) of 100, buffered; rate in messages/s", writeSeconds)),
            BenchFigure(
                system: "Logbook", name: "chat: open from a snapshot, \(build)",
                kind: "chat open", changesPerSecond: Double(messages) / openSeconds,
                rawMegabytesPerSecond: Double(textBytes) / openSeconds / 1e6,
                peakMegabytes: openPeak,
                note: String(format: "%.3f s; %@; rate in messages/s", openSeconds, loadedFrom)),
        ]
    }
}
