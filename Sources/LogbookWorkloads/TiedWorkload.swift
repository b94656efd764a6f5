import Logbook
import LogbookCRDT

/// A log where many accepted changes tie on `colVersion` with the winner before them: two
/// nodes editing the same columns. What compaction's tie settling is measured on
/// (`logbook bench maintenance` and `Benchmarks/`).
///
/// Node 1 makes the standard workload's upserts; node 2 writes `tiedShare` of the same
/// columns at the same column versions (and a higher dbVersion, so they win), sent every
/// `syncInterval` changes of node 1, shuffled: node 2's changes whose column node 1 has not
/// written again meanwhile are accepted, and tie. Seeded, so every run writes the same log.
public struct TiedWorkload: Sendable {
    /// Of the changes node 1 makes, the share node 2 writes concurrently.
    public static let tiedShare = 0.5

    /// Records of the standard workload node 1 writes to.
    public var records: Int
    /// Changes to write in all (node 1's and node 2's accepted ones).
    public var changes: Int

    /// A workload of `changes` changes over `records` records.
    public init(records: Int, changes: Int) {
        self.records = records
        self.changes = changes
    }

    /// Node 2's changes are sent in batches of this many (fewer on a small log, so that
    /// some are sent).
    public var syncInterval: Int { max(50, min(5_000, changes / 20)) }

    /// Writes the log into `logbook` (node 1's), then seals its active segment so that
    /// compaction reaches every record.
    public func write(into logbook: Logbook) async throws(LogbookError) {
        var workload = StandardWorkload(recordCount: records)
        var random = SeededGenerator(seed: 7)
        var written = 0
        var fromNode2: [Change<String, String, Value>] = []
        while written < changes {
            guard case .upsert(let recordId, let fields) = workload.next() else { continue }
            let made = try await logbook.insertOrUpdate(recordId, fields: fields)
            written += made.count
            for change in made where Double.random(in: 0..<1, using: &random) < Self.tiedShare {
                fromNode2.append(
                    Change(
                        recordId: change.recordId, colName: change.colName,
                        value: .string("from node 2"), colVersion: change.colVersion,
                        dbVersion: change.dbVersion + 1, nodeId: 2,
                        localDbVersion: change.dbVersion + 1))
            }
            if fromNode2.count >= syncInterval {
                // In no particular order, as changes relayed from several nodes arrive.
                fromNode2.shuffle(using: &random)
                written += try await logbook.merge(fromNode2).count
                fromNode2.removeAll(keepingCapacity: true)
            }
        }
        try logbook.sealActiveSegment()
    }
}
