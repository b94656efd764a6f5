import LogbookTesting
import Testing

@testable import LogbookCRDT

// restoreGrouped must end exactly where restore ends, for any list of stored changes: a
// replica's state grouped by record (what snapshots hold), and hostile lists with a record
// in several runs, a column twice in a run, deletions inside runs, re-inserts after them.
@Suite struct GroupedRestoreTests {
    private func randomChanges(seed: UInt64) -> [Change<String, String, Value>] {
        var random = SeededGenerator(seed: seed)
        return (0..<Int.random(in: 0..<600, using: &random)).map { _ in
            let recordId = "r\(Int.random(in: 0..<40, using: &random))"
            let deletes = random.chance(0.08)
            return Change(
                recordId: recordId,
                colName: deletes ? nil : "c\(Int.random(in: 0..<4, using: &random))",
                value: deletes || random.chance(0.1)
                    ? nil : .int(Int64.random(in: 0..<9, using: &random)),
                colVersion: deletes
                    ? tombstoneColumnVersion : UInt64.random(in: 1...5, using: &random),
                dbVersion: UInt64.random(in: 1...50, using: &random),
                nodeId: UInt64.random(in: 1...3, using: &random),
                localDbVersion: UInt64.random(in: 1...80, using: &random))
        }
    }

    private func expectSame(_ changes: [Change<String, String, Value>], seed: UInt64) {
        let plain = CRDT<String, String, Value>(nodeId: 1)
        plain.restore(changes)
        let grouped = CRDT<String, String, Value>(nodeId: 1)
        grouped.restoreGrouped(changes)
        #expect(grouped.getChangesSince(0) == plain.getChangesSince(0), "seed \(seed)")
        #expect(grouped.getTombstones() == plain.getTombstones(), "seed \(seed)")
        #expect(grouped.getClock().currentTime() == plain.getClock().currentTime(), "seed \(seed)")
        grouped.checkInvariants()
    }

    @Test(arguments: Array(1...40) as [UInt64])
    func groupedAndPlainRestoreAgreeOnAnyList(seed: UInt64) {
        let changes = randomChanges(seed: seed)
        expectSame(changes, seed: seed)
        // The same changes grouped by record, as a snapshot lays them out.
        expectSame(changes.sorted { $0.recordId < $1.recordId }, seed: seed)
        // Split into calls at random points (a snapshot's batches).
        let plain = CRDT<String, String, Value>(nodeId: 1)
        plain.restore(changes)
        let grouped = CRDT<String, String, Value>(nodeId: 1)
        var random = SeededGenerator(seed: seed &+ 99)
        var start = 0
        while start < changes.count {
            let end = min(changes.count, start + Int.random(in: 1...50, using: &random))
            grouped.restoreGrouped(Array(changes[start..<end]))
            start = end
        }
        #expect(grouped.getChangesSince(0) == plain.getChangesSince(0), "seed \(seed)")
    }
}
