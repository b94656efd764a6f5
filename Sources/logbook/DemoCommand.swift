import ArgumentParser
import Foundation
import Logbook
import LogbookCRDT
import LogbookWorkloads

/// `logbook demo`: two replicas converge, then a durable log is written, closed, reopened
/// and replayed, with the throughput of each step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Show replicas converging; a log written, replayed and compacted; views rebuilt by replay.",
        discussion: """
            Part 1: replica 1 and replica 2 write overlapping fields of the same device record, \
            one deletes a field, the other a whole record; then each merges the other's changes. \
            Column-level last-writer-wins decides every conflict the same way on both sides. \
            Part 2: the standard workload (see docs/benchmarks.md) is written to a Logbook in \
            DIRECTORY, which is closed, reopened (replaying the log) and compared by digest. \
            Part 3: The Goodies' fixture homes (../shared/fixtures, or a generated home when \
            absent) and a generated year of drawbridge openings go into DIRECTORY-views; the \
            graph, search and bridge views answer a path, a search and a summary, and a reopen \
            rebuilds them by replay to the same digests. Part 4: two nodes on loopback \
            (DIRECTORY-node1, -node2) write conflicting updates, pull each other's logs over \
            HTTP and end with one state digest; then, registered as each other's peers, one \
            deletes records and both collect the tombstones (tombstone GC).
            """
    )

    @Option(help: "Where to write the demo log; replaced on each run.")
    var directory = "logbook-demo"
    @Option(
        help: "Records in the workload (each gets 5 columns, then random updates and deletions).")
    var records = 100_000
    @Option(help: "Changes to write in total.")
    var changes = 1_000_000

    func run() async throws {
        try showConvergence()
        try await showDurableLog()
        do {
            try await DemoViews(directory: directory + "-views").run()
            try await DemoShipping(directory: directory).run()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            throw exitWithError(error)
        }
    }

    private func showConvergence() throws {
        let kitchen = CRDT<String, String, Value>(nodeId: 1)
        let office = CRDT<String, String, Value>(nodeId: 2)

        print("== Two replicas write independently")
        var fromKitchen = kitchen.insertOrUpdate(
            "entity/lamp", fields: [("name", "Lamp"), ("content.brightness", 40)])
        fromKitchen += kitchen.insertOrUpdate("entity/fan", fields: [("name", "Fan")])
        var fromOffice = office.insertOrUpdate(
            "entity/lamp", fields: [("name", "Desk lamp"), ("content.color", "warm")])
        fromOffice += office.insertOrUpdate("entity/fan", fields: [("name", "Ceiling fan")])
        fromKitchen.append(
            contentsOf: [kitchen.deleteField("entity/lamp", fieldName: "content.brightness")]
                .compactMap { $0 })
        fromOffice.append(contentsOf: [office.deleteRecord("entity/fan")].compactMap { $0 })
        printState("replica 1", kitchen)
        printState("replica 2", office)

        print(
            "\n== They exchange changes (\(fromKitchen.count) one way, \(fromOffice.count) the other)"
        )
        let acceptedByOffice = office.mergeChanges(fromKitchen)
        let acceptedByKitchen = kitchen.mergeChanges(fromOffice)
        print("replica 2 accepted \(acceptedByOffice.count) of \(fromKitchen.count)")
        print("replica 1 accepted \(acceptedByKitchen.count) of \(fromOffice.count)")
        printState("replica 1", kitchen)
        printState("replica 2", office)

        let converged =
            kitchen.getData() == office.getData()
            && Set(kitchen.getTombstones().keys) == Set(office.getTombstones().keys)
        print("\nconverged: \(converged ? "yes" : "NO")")
        if !converged { throw ExitCode.failure }
    }

    private func showDurableLog() async throws {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: directory) {
            guard fileManager.fileExists(atPath: directory + "/logbook.json") else {
                throw ValidationError(
                    "\(directory) exists and is not a Logbook; choose another --directory")
            }
            try fileManager.removeItem(atPath: directory)
        }
        print(
            "\n== A durable log: \(formatCount(Double(changes))) changes of the standard workload into \(directory)/"
        )
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 4 * 1024 * 1024  // several segments, so compaction has work
        do {
            let logbook = try Logbook.open(directory: directory, nodeId: 1, options: options)
            var workload = StandardWorkload(recordCount: records, seed: 42)
            let started = ContinuousClock.now
            let written = try await runStandardWorkload(
                on: logbook, workload: &workload, changeCount: changes)
            try logbook.sync()
            let seconds = (ContinuousClock.now - started).seconds
            let digest = logbook.stateDigest()
            let size = logbook.sizeBytes
            print(
                "wrote \(written) changes in \(String(format: "%.2f", seconds)) s: \(formatCount(Double(written) / seconds)) changes/s"
            )
            print(
                "on disk: \(formatBytes(size)) in \(logbook.segmentCount) segments, \(String(format: "%.1f", Double(size) / Double(written))) bytes per change"
            )
            try logbook.close()

            let reopened = try Logbook.open(directory: directory, options: options)
            let statistics = reopened.replayStatistics
            print(
                "reopened: replayed \(statistics.changes) changes in \(String(format: "%.3f", statistics.seconds)) s: \(formatCount(Double(statistics.changes) / statistics.seconds)) changes/s, \(formatBytes(Int64(Double(statistics.rawBytes) / statistics.seconds)))/s raw"
            )
            print(
                "state: \(reopened.records().count) live records, \(reopened.tombstoneCount()) tombstones"
            )
            let same = reopened.stateDigest() == digest
            print(
                "digest after replay: \(reopened.stateDigest()) (\(same ? "same as before closing" : "DIFFERENT"))"
            )
            if !same {
                try reopened.close()
                throw ExitCode.failure
            }

            print("\n== Compaction: keep each column's winner and live tombstones, drop the rest")
            var compaction = CompactionOptions()
            compaction.dirtyRatioMin = 0
            let report = try reopened.compact(compaction)
            print(describeCompaction(report, dryRun: false))
            let compactedDigest = reopened.stateDigest()
            print(
                "log on disk: \(formatBytes(size)) -> \(formatBytes(reopened.sizeBytes)); digest \(compactedDigest == digest ? "unchanged" : "CHANGED")"
            )
            try reopened.close()
            if compactedDigest != digest { throw ExitCode.failure }
            print("\nnext: logbook inspect \(directory); logbook export \(directory) | head")
        } catch let error as ExitCode {
            throw error
        } catch {
            throw exitWithError(error)
        }
    }

    private func printState(_ label: String, _ replica: CRDT<String, String, Value>) {
        print("\(label) (clock \(replica.getClock().currentTime())):")
        for (recordId, record) in replica.getData().sorted(by: { $0.key < $1.key }) {
            let fields = record.fields.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(describe($0.value))" }
                .joined(separator: " ")
            print("  \(recordId)  \(fields)")
        }
        for recordId in replica.getTombstones().keys.sorted() {
            print("  \(recordId)  (deleted)")
        }
    }

    private func describe(_ value: Value) -> String {
        switch value {
        case .string(let string): return "\"\(string)\""
        case .int(let int): return "\(int)"
        default: return "\(value)"
        }
    }
}
