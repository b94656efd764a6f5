import LogbookCRDT
import Testing

// init(nodeId:changes:) and reset(changes:) rebuild through merge semantics with stored
// local versions: a replica rebuilt from its own accepted changes equals the original.
@Suite struct RebuildTests {
    private func history() -> (TestCRDT, [TestChange]) {
        let replica = TestCRDT(nodeId: 1)
        var accepted = replica.insertOrUpdate("r", fields: [("a", 1), ("b", 2)])
        accepted += replica.insertOrUpdate("r", fields: [("a", 3)])
        accepted += [replica.deleteField("r", fieldName: "b")].compactMap { $0 }
        accepted += replica.mergeChanges([change("s", "x", "y", col: 4, db: 20, node: 2)])
        accepted += replica.insertOrUpdate("t", fields: [("a", 1)])
        accepted += [replica.deleteRecord("t")].compactMap { $0 }
        return (replica, accepted)
    }

    @Test func rebuiltReplicaEqualsOriginalIncludingFieldDeletions() {
        let (original, accepted) = history()
        let rebuilt = TestCRDT(nodeId: 1, changes: accepted)
        #expect(ReplicaSummary(rebuilt) == ReplicaSummary(original))
        #expect(rebuilt.getRecord("r")?.fields == ["a": 3])
        #expect(rebuilt.getRecord("r")?.columnVersions == original.getRecord("r")?.columnVersions)
        #expect(rebuilt.getTombstones() == original.getTombstones())
        #expect(rebuilt.getClock() == original.getClock())
        #expect(rebuilt.getChangesSince(0) == original.getChangesSince(0))
    }

    @Test func rebuildSetsClockToHighestVersionSeen() {
        let rebuilt = TestCRDT(
            nodeId: 1, changes: [change("r", "a", 1, col: 1, db: 40, node: 2, local: 7)])
        #expect(rebuilt.getClock().currentTime() == 40)
        #expect(rebuilt.getRecord("r")?.columnVersions["a"]?.localDbVersion == 7)
    }

    @Test func resetReplacesState() {
        let (original, accepted) = history()
        let other = TestCRDT(nodeId: 1)
        other.insertOrUpdate("junk", fields: [("z", 1)])
        other.deleteRecord("junk2")
        other.reset(changes: accepted)
        #expect(ReplicaSummary(other) == ReplicaSummary(original))
        #expect(other.getClock() == original.getClock())
    }

    @Test func rebuildKeepsOutOfOrderWinners() {
        // Stored history may hold a loser after a winner (two concurrent remote writes):
        // merge semantics keep the winner where plain replay would overwrite it.
        let rebuilt = TestCRDT(
            nodeId: 1,
            changes: [
                change("r", "a", "winner", col: 2, db: 5, node: 3, local: 1),
                change("r", "a", "loser", col: 1, db: 9, node: 9, local: 2),
            ])
        #expect(rebuilt.getRecord("r")?.fields["a"] == "winner")
    }
}
