import LogbookCRDT
import Testing

// `ReplicaState.insertOrUpdate(_:fields:refusingColumnVersionsFrom:reusing:)` writes a
// write's changes over the array the previous one left. What it leaves must be exactly the
// changes the plain call returns, whatever the array held before (longer, shorter, empty,
// shared with a caller who kept it), and a copy kept from an earlier write stays as it was.
@Suite struct ReusedChangeArrayTests {
    /// Writes whose change counts go up and down: a five-field insert, one field, none (a
    /// tombstoned record), three, a refusal, one again.
    private static let writes: [(String, [(String, Value)])] = [
        (
            "r/1",
            [
                ("a", .int(1)), ("b", .string("two")), ("c", .null), ("d", .bool(true)),
                ("e", .double(0.5)),
            ]
        ),
        ("r/1", [("b", .string("a longer string than fifteen bytes"))]),
        ("r/gone", [("a", .int(9))]),
        ("r/2", [("x", .string("x")), ("y", .bytes([1, 2, 3])), ("z", .int(-4))]),
        ("r/1", [("a", .int(2))]),
        ("r/1", [("c", .string("last")), ("a", .int(3))]),
    ]

    /// A replica with `r/gone` tombstoned and `r/1`'s column `c` at version 40 (from node 2),
    /// so that a write limited to 40 is refused there.
    private func replica() -> ReplicaState {
        let state = ReplicaState(nodeId: 1)
        _ = state.merge([
            change("r/gone", nil, nil, col: tombstoneColumnVersion, db: 1, node: 2),
            change("r/1", "c", .int(0), col: 39, db: 2, node: 2),
        ])
        return state
    }

    /// Each write on one replica through the plain call, on another reusing one array;
    /// `limit` applies to both. Returns the plain call's answers, the reusing call's (as the
    /// array after each, kept), and the refusals.
    private func both(limit: UInt64) -> (
        plain: [[Change<String, String, Value>]], reused: [[Change<String, String, Value>]],
        refusals: Int
    ) {
        let (plainState, reusingState) = (replica(), replica())
        var plain: [[Change<String, String, Value>]] = []
        var reused: [[Change<String, String, Value>]] = []
        var changes: [Change<String, String, Value>] = []
        var refusals = 0
        for (index, (recordId, fields)) in Self.writes.enumerated() {
            let flags = UInt32(index % 2)
            let expected = try? plainState.insertOrUpdate(
                recordId, flags: flags, fields: fields, refusingColumnVersionsFrom: limit)
            do {
                try reusingState.insertOrUpdate(
                    recordId, flags: flags, fields: fields, refusingColumnVersionsFrom: limit,
                    reusing: &changes)
            } catch {
                refusals += 1
                #expect(changes.isEmpty, "a refused write leaves no changes")
            }
            plain.append(expected ?? [])
            reused.append(changes)
        }
        #expect(plainState.getChangesSince(0) == reusingState.getChangesSince(0))
        return (plain, reused, refusals)
    }

    @Test func eachWriteLeavesExactlyThePlainCallsChanges() {
        let (plain, reused, refusals) = both(limit: .max)
        #expect(refusals == 0)
        #expect(reused == plain)
        #expect(reused.map(\.count) == [5, 1, 0, 3, 1, 2])
        // Every field of an overwritten element is the new write's.
        #expect(reused[1].first?.recordId == "r/1")
        #expect(reused[1].first?.colName == "b")
        #expect(reused[4].first?.value == .int(2))
        #expect(reused[4].first?.colVersion == 2)
    }

    @Test func aRefusedWriteLeavesAnEmptyArrayAndTheNextWriteFillsIt() {
        let (plain, reused, refusals) = both(limit: 40)
        // The last write's column `c` is at 40 after the first write raised it.
        #expect(refusals == 1)
        #expect(reused == plain)
        #expect(reused.last == [])
    }

    @Test func anArrayAWriterKeptIsNotWrittenOver() throws {
        let state = ReplicaState(nodeId: 1)
        var changes: [Change<String, String, Value>] = []
        try state.insertOrUpdate(
            "r/1", fields: [("a", .int(1))], refusingColumnVersionsFrom: .max, reusing: &changes)
        let kept = changes
        let keptCopy = Array(kept)
        try state.insertOrUpdate(
            "r/2", fields: [("b", .int(2))], refusingColumnVersionsFrom: .max, reusing: &changes)
        #expect(kept == keptCopy)
        #expect(kept.first?.recordId == "r/1")
        #expect(changes.first?.recordId == "r/2")
    }
}
