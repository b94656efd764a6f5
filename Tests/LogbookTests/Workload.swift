import Logbook
import LogbookCRDT
import LogbookTesting

/// Seeded random operations against a Logbook: inserts and updates, field deletions,
/// record deletions, and merges of changes from an imaginary remote node.
struct Workload {
    var random: SeededGenerator
    let recordCount: Int
    private var remote: CRDT<String, String, Value>

    init(seed: UInt64, recordCount: Int = 30) {
        random = SeededGenerator(seed: seed)
        self.recordCount = recordCount
        remote = CRDT(nodeId: 999)
    }

    /// Performs one random operation; returns the changes it produced (accepted ones).
    mutating func step(_ logbook: Logbook) async throws -> [Change<String, String, Value>] {
        let recordId = "entity/\(Int.random(in: 0..<recordCount, using: &random))"
        let column = "c\(Int.random(in: 0..<5, using: &random))"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<60:
            let value: Value =
                random.chance(0.5)
                ? .int(Int64.random(in: 0...1000, using: &random))
                : .string("v\(Int.random(in: 0...99, using: &random))")
            return try await logbook.insertOrUpdate(
                recordId, fields: [(column, value), ("name", .string(recordId))])
        case 60..<75:
            return try await logbook.deleteField(recordId, fieldName: column).map { [$0] } ?? []
        case 75..<80:
            return try await logbook.deleteRecord(recordId).map { [$0] } ?? []
        default:
            var remoteChanges = remote.insertOrUpdate(
                recordId, fields: [(column, .string("remote"))])
            if random.chance(0.2),
                let deletion = remote.deleteRecord(
                    "entity/\(Int.random(in: 0..<recordCount, using: &random))")
            {
                remoteChanges.append(deletion)
            }
            return try await logbook.merge(remoteChanges)
        }
    }
}
