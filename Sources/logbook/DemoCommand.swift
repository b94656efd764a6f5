import ArgumentParser
import LogbookBench

/// `logbook demo`: two replicas converge, then a durable log is written, closed, reopened
/// and replayed, views are rebuilt, and two nodes ship logs; `LogbookDemo` tells the story.
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

    @Option(help: "Where to write the demo log; replaced on each run (only if it is a Logbook).")
    var directory = "logbook-demo"
    @Option(
        help: "Records in the workload (each gets 5 columns, then random updates and deletions).")
    var records = 100_000
    @Option(help: "Changes to write in total.")
    var changes = 1_000_000

    func validate() throws {
        guard records > 0, changes > 0 else {
            throw ValidationError("--records and --changes must be positive")
        }
    }

    func run() async throws {
        do {
            try await LogbookDemo(directory: directory, records: records, changes: changes)
                .run { print($0) }
        } catch let error as DemoError {
            if case .notALogbook = error { throw ValidationError("\(error)") }
            throw exitWithError(error)
        } catch {
            throw exitWithError(error)
        }
    }
}
