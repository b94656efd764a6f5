import LogbookCRDT
import Testing

// getChangesSince returns state, not history, in a fixed order; compressChanges keeps one
// winner per column and lets a record deletion swallow its columns.
@Suite struct SyncTests {
    @Test func changesSinceReturnsCurrentStateNotHistory() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        replica.insertOrUpdate("r", fields: [("a", 2)])
        replica.insertOrUpdate("r", fields: [("b", 3)])
        replica.deleteField("r", fieldName: "b")
        #expect(
            replica.getChangesSince(0) == [
                change("r", "a", 2, col: 2, db: 2, node: 1, local: 2),
                change("r", "b", nil, col: 2, db: 4, node: 1, local: 4),
            ])
    }

    @Test func changesSinceFiltersByLocalVersionAndIncludesTombstones() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("old", fields: [("a", 1)])
        replica.insertOrUpdate("new", fields: [("a", 1)])
        replica.insertOrUpdate("dead", fields: [("a", 1)])
        replica.deleteRecord("dead")
        let since = replica.getChangesSince(1)
        #expect(since.map(\.recordId) == ["new", "dead"])
        #expect(since.last == change("dead", nil, nil, col: .max, db: 4, node: 1, local: 4))
        #expect(since.allSatisfy { $0.flags == 0 })
        #expect(replica.getChangesSince(4).isEmpty)
    }

    @Test func changesSinceUsesLocalNotOriginVersion() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("x", fields: [("a", 1)])
        replica.insertOrUpdate("x", fields: [("a", 1)])
        replica.insertOrUpdate("x", fields: [("a", 1)])  // clock 3
        replica.mergeChanges([change("r", "a", 1, col: 1, db: 1, node: 2)])  // local 4
        #expect(replica.getChangesSince(3).map(\.recordId) == ["r"])
    }

    @Test func changesSinceIsOrderedByLocalVersionThenRecordThenColumn() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("b", fields: [("z", 1), ("y", 1)])
        replica.insertOrUpdate("a", fields: [("x", 1)])
        replica.mergeChanges([
            change("c", "k", 1, col: 1, db: 1, node: 2)
        ])
        replica.insertOrUpdate("a", fields: [("w", 1)])
        let order = replica.getChangesSince(0).map { "\($0.recordId).\($0.colName ?? "-")" }
        #expect(order == ["b.y", "b.z", "a.x", "c.k", "a.w"])
    }

    @Test func excludingDropsChangesByStoredOriginNode() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("mine", fields: [("a", 1)])
        replica.mergeChanges([
            change("theirs", "a", 1, col: 1, db: 1, node: 2),
            change("gone", nil, nil, col: .max, db: 1, node: 2),
        ])
        let changes = replica.getChangesSinceExcluding(0, excluding: [2])
        #expect(changes.map(\.recordId) == ["mine"])
    }

    @Test func compressKeepsHighestVersionPerColumn() {
        var changes = [
            change("r", "a", 1, col: 1, db: 1, node: 1),
            change("r", "a", 3, col: 3, db: 1, node: 1),
            change("r", "a", 2, col: 3, db: 1, node: 2),
            change("r", "b", 1, col: 1, db: 1, node: 1),
            change("q", "a", 1, col: 1, db: 1, node: 1),
        ]
        TestCRDT.compressChanges(&changes)
        #expect(
            changes == [
                change("q", "a", 1, col: 1, db: 1, node: 1),
                change("r", "a", 2, col: 3, db: 1, node: 2),
                change("r", "b", 1, col: 1, db: 1, node: 1),
            ])
    }

    @Test func compressKeepsOnlyTheHighestDeletionOfADeletedRecord() {
        var changes = [
            change("r", "a", 1, col: 5, db: 9, node: 1),
            change("r", nil, nil, col: .max, db: 3, node: 1),
            change("r", nil, nil, col: .max, db: 4, node: 1),
            change("s", "a", 1, col: 1, db: 1, node: 1),
        ]
        TestCRDT.compressChanges(&changes)
        #expect(
            changes == [
                change("r", nil, nil, col: .max, db: 4, node: 1),
                change("s", "a", 1, col: 1, db: 1, node: 1),
            ])
    }

    @Test func compressLeavesEmptyAndSingleInputsAlone() {
        var empty: [TestChange] = []
        TestCRDT.compressChanges(&empty)
        #expect(empty.isEmpty)
        var single = [change("r", "a", 1, col: 1, db: 1, node: 1)]
        TestCRDT.compressChanges(&single)
        #expect(single.count == 1)
    }
}
