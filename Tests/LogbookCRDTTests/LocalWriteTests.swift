import LogbookCRDT
import Testing

// insertOrUpdate, deleteRecord and deleteField as crdt-lite defines them: what they emit,
// when they tick the clock, and what they leave in the state.
@Suite struct LocalWriteTests {
    @Test func insertEmitsOneChangePerFieldSharingOneTick() {
        let replica = TestCRDT(nodeId: 7)
        let changes = replica.insertOrUpdate("r", fields: [("a", 1), ("b", "x")])
        #expect(
            changes == [
                change("r", "a", 1, col: 1, db: 1, node: 7, local: 1),
                change("r", "b", "x", col: 1, db: 1, node: 7, local: 1),
            ])
        #expect(replica.getClock().currentTime() == 1)
        #expect(replica.getRecord("r")?.fields == ["a": 1, "b": "x"])
    }

    @Test func updateIncrementsOnlyTheWrittenColumns() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1), ("b", 2)])
        let changes = replica.insertOrUpdate("r", fields: [("a", 3)])
        #expect(changes == [change("r", "a", 3, col: 2, db: 2, node: 1, local: 2)])
        #expect(replica.getRecord("r")?.columnVersions["b"]?.colVersion == 1)
    }

    @Test func duplicateColumnInOneCallGetsConsecutiveVersions() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        let changes = replica.insertOrUpdate("r", fields: [("a", 2), ("a", 3)])
        #expect(changes.map(\.colVersion) == [2, 3])
        #expect(changes.map(\.dbVersion) == [2, 2])
        #expect(replica.getRecord("r")?.fields["a"] == 3)
    }

    @Test func insertIntoTombstonedRecordTicksButWritesNothing() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        replica.deleteRecord("r")
        let changes = replica.insertOrUpdate("r", fields: [("a", 2)])
        #expect(changes.isEmpty)
        #expect(replica.getClock().currentTime() == 3)
        #expect(replica.getRecord("r") == nil)
    }

    @Test func insertWithFlagsSetsFlagsOnEveryChange() {
        let replica = TestCRDT(nodeId: 1)
        let changes = replica.insertOrUpdateWithFlags("r", flags: 5, fields: [("a", 1), ("b", 2)])
        #expect(changes.map(\.flags) == [5, 5])
    }

    @Test func recordRangeTracksLowestAndHighestLocalVersion() {
        let replica = TestCRDT(nodeId: 1)
        #expect(Record<String, Value>().lowestLocalDbVersion == .max)
        #expect(Record<String, Value>().highestLocalDbVersion == 0)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        replica.insertOrUpdate("other", fields: [("a", 1)])
        replica.insertOrUpdate("r", fields: [("b", 1)])
        #expect(replica.getRecord("r")?.lowestLocalDbVersion == 1)
        #expect(replica.getRecord("r")?.highestLocalDbVersion == 3)
    }

    @Test func deleteRecordTicksTombstonesAndEmitsMaxColumnVersion() {
        let replica = TestCRDT(nodeId: 4)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        let deletion = replica.deleteRecord("r")
        #expect(deletion == change("r", nil, nil, col: .max, db: 2, node: 4, local: 2))
        #expect(replica.getRecord("r") == nil)
        #expect(replica.isTombstoned("r"))
        #expect(
            replica.getTombstone("r") == TombstoneInfo(dbVersion: 2, nodeId: 4, localDbVersion: 2))
        #expect(replica.tombstoneCount() == 1)
    }

    @Test func deleteOfTombstonedRecordReturnsNilWithoutTick() {
        let replica = TestCRDT(nodeId: 1)
        replica.deleteRecord("r")
        #expect(replica.deleteRecord("r") == nil)
        #expect(replica.getClock().currentTime() == 1)
    }

    @Test func deleteRecordWithFlagsCarriesFlags() {
        let replica = TestCRDT(nodeId: 1)
        #expect(replica.deleteRecordWithFlags("r", flags: 9)?.flags == 9)
    }

    @Test func deleteFieldTicksBumpsVersionAndKeepsColumnVersion() {
        let replica = TestCRDT(nodeId: 3)
        replica.insertOrUpdate("r", fields: [("a", 1), ("b", 2)])
        let deletion = replica.deleteField("r", fieldName: "a")
        #expect(deletion == change("r", "a", nil, col: 2, db: 2, node: 3, local: 2))
        #expect(replica.getRecord("r")?.fields == ["b": 2])
        #expect(
            replica.getRecord("r")?.columnVersions["a"]
                == ColumnVersion(colVersion: 2, dbVersion: 2, nodeId: 3, localDbVersion: 2))
    }

    @Test(arguments: ["absent", "tombstoned", "missingField"])
    func deleteFieldReturnsNilWithoutTick(_ situation: String) {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("tombstoned", fields: [("a", 1)])
        replica.deleteRecord("tombstoned")
        replica.insertOrUpdate("missingField", fields: [("b", 1)])
        let before = replica.getClock().currentTime()
        #expect(replica.deleteField(situation, fieldName: "a") == nil)
        #expect(replica.getClock().currentTime() == before)
    }

    @Test func deleteFieldWithFlagsCarriesFlags() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        #expect(replica.deleteFieldWithFlags("r", fieldName: "a", flags: 2)?.flags == 2)
    }

    @Test func wideRecordUpdatesStayLinear() {
        // 1000 columns then 1000 single-column updates: with a copy per write this is
        // quadratic; the check is on the result, the speed is measured in Benchmarks.
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("wide", fields: (0..<1000).map { ("c\($0)", .int(Int64($0))) })
        for column in 0..<1000 {
            replica.insertOrUpdate("wide", fields: [("c\(column)", .int(-1))])
        }
        let record = replica.getRecord("wide")
        #expect(record?.fields.count == 1000)
        #expect(record?.columnVersions.values.allSatisfy { $0.colVersion == 2 } == true)
        replica.checkInvariants()
    }
}
