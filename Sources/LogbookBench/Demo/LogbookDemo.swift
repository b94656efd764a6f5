/// What `logbook demo` runs, narrated line by line: replicas converging in memory, a durable
/// log written, replayed and compacted, views rebuilt by replay, and two nodes shipping their
/// logs over loopback HTTP and collecting tombstones. Every part checks its own point (equal
/// digests, one state) and throws `DemoError.diverged` when it does not hold.
public struct LogbookDemo: Sendable {
    /// Where the durable log goes; the views and the nodes use `-views`, `-node1`, `-node2`
    /// beside it. Each is replaced on every run, and only if it holds a Logbook.
    public var directory: String
    /// Records in the standard workload of part 2.
    public var records: Int
    /// Changes part 2 writes.
    public var changes: Int

    /// A demo writing into `directory` and its siblings.
    public init(directory: String, records: Int = 100_000, changes: Int = 1_000_000) {
        self.directory = directory
        self.records = records
        self.changes = changes
    }

    /// Runs every part in order; `narrate` hears each line of the story.
    public func run(narrate: @escaping (String) -> Void) async throws {
        try DemoConvergence(narrate: narrate).run()
        try await DemoDurableLog(
            directory: directory, records: records, changes: changes, narrate: narrate
        ).run()
        try await DemoViews(directory: directory + "-views", narrate: narrate).run()
        try await DemoShipping(directory: directory, narrate: narrate).run()
    }
}
