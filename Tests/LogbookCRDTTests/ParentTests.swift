import LogbookCRDT
import Testing

// A child replica layered over a parent: reads fall through, the first write copies the
// parent's record, the parent never changes, and sync output merges both layers.
@Suite struct ParentTests {
    private func makeParent() -> TestCRDT {
        let parent = TestCRDT(nodeId: 1)
        parent.insertOrUpdate("shared", fields: [("a", 1), ("b", 2)])
        parent.insertOrUpdate("untouched", fields: [("a", 1)])
        parent.deleteRecord("deleted")
        return parent
    }

    @Test func childStartsAtParentClockAndReadsThroughIt() {
        let parent = makeParent()
        let child = TestCRDT(nodeId: 2, parent: parent)
        #expect(child.getClock() == parent.getClock())
        #expect(child.getRecord("shared")?.fields == ["a": 1, "b": 2])
        #expect(child.isTombstoned("deleted"))
        #expect(child.getTombstone("deleted")?.nodeId == 1)
        #expect(child.getData().isEmpty)
    }

    @Test func firstLocalWriteCopiesParentRecordAndLeavesParentAlone() {
        let parent = makeParent()
        let child = TestCRDT(nodeId: 2, parent: parent)
        let changes = child.insertOrUpdate("shared", fields: [("a", 10)])
        #expect(changes.map(\.colVersion) == [2])
        #expect(child.getData()["shared"]?.fields == ["a": 10, "b": 2])
        #expect(parent.getRecord("shared")?.fields == ["a": 1, "b": 2])
    }

    @Test func fieldDeletionInChildCopiesThenDeletes() {
        let parent = makeParent()
        let child = TestCRDT(nodeId: 2, parent: parent)
        #expect(child.deleteField("shared", fieldName: "b") != nil)
        #expect(child.getRecord("shared")?.fields == ["a": 1])
        #expect(parent.getRecord("shared")?.fields == ["a": 1, "b": 2])
    }

    @Test func parentTombstoneBlocksChildWrites() {
        let child = TestCRDT(nodeId: 2, parent: makeParent())
        #expect(child.insertOrUpdate("deleted", fields: [("a", 1)]).isEmpty)
        #expect(child.deleteRecord("deleted") == nil)
    }

    @Test func childDeletionHidesParentRecord() {
        let parent = makeParent()
        let child = TestCRDT(nodeId: 2, parent: parent)
        child.deleteRecord("untouched")
        #expect(child.getRecord("untouched") == nil)
        #expect(parent.getRecord("untouched") != nil)
    }

    @Test func childChangesSinceAreParentAndOwnCompressed() {
        let parent = makeParent()
        let child = TestCRDT(nodeId: 2, parent: parent)
        child.insertOrUpdate("shared", fields: [("a", 10)])
        child.deleteRecord("untouched")
        let changes = child.getChangesSince(0)
        let summary = changes.map { "\($0.recordId).\($0.colName ?? "-")=\($0.colVersion)" }
        #expect(
            Set(summary) == [
                "shared.a=2", "shared.b=1", "untouched.-=\(UInt64.max)", "deleted.-=\(UInt64.max)",
            ])
        #expect(summary.count == 4)
        #expect(changes.map(\.localDbVersion) == changes.map(\.localDbVersion).sorted())
    }
}

// `copy()` is a snapshot: O(1) to take, and neither side sees the other's later writes.
@Suite struct CopyTests {
    @Test func aCopyKeepsItsStateWhileTheOriginalMovesOn() {
        let original = CRDT<String, String, Int>(nodeId: 1)
        original.insertOrUpdate("a", fields: [("x", 1)])
        let copy = original.copy()
        original.insertOrUpdate("a", fields: [("x", 2)])
        original.deleteRecord("b")
        copy.insertOrUpdate("c", fields: [("y", 3)])
        #expect(copy.getRecord("a")?.field("x") == 1)
        #expect(!copy.isTombstoned("b"))
        #expect(original.getRecord("c") == nil)
        #expect(original.getClock().currentTime() == 3)
        #expect(copy.getClock().currentTime() == 2)
    }
}
