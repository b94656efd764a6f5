import LogbookCRDT
import Testing

// mergeChanges as crdt-lite defines it: the clock moves for every incoming change, the
// default rule breaks ties by colVersion, dbVersion then nodeId, tombstones swallow changes,
// and accepted changes carry the receiver's local version and the sender's flags.
@Suite struct MergeTests {
    @Test func everyIncomingChangeUpdatesTheClockEvenWhenRejected() {
        let replica = TestCRDT(nodeId: 1)
        replica.deleteRecord("gone")  // clock 1
        let accepted = replica.mergeChanges([change("gone", "a", 1, col: 1, db: 50, node: 2)])
        #expect(accepted.isEmpty)
        #expect(replica.getClock().currentTime() == 51)
    }

    @Test func acceptedChangeCarriesReceiverLocalVersionAndIncomingFlags() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("x", fields: [("a", 1)])  // clock 1
        let incoming = change("r", "a", "v", col: 1, db: 9, node: 2, local: 9, flags: 3)
        let accepted = replica.mergeChanges([incoming])
        #expect(accepted == [change("r", "a", "v", col: 1, db: 9, node: 2, local: 10, flags: 3)])
        #expect(replica.getRecord("r")?.columnVersions["a"]?.localDbVersion == 10)
    }

    @Test func columnWithoutLocalVersionIsAccepted() {
        let replica = TestCRDT(nodeId: 9)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        let accepted = replica.mergeChanges([change("r", "b", 2, col: 1, db: 1, node: 1)])
        #expect(accepted.count == 1)
        #expect(replica.getRecord("r")?.fields == ["a": 1, "b": 2])
    }

    @Test(arguments: [
        // (remote col, db, node) against local (2, 5, 5): accepted?
        (UInt64(3), UInt64(1), NodeId(1), true),
        (1, 99, 99, false),
        (2, 6, 1, true),
        (2, 4, 99, false),
        (2, 5, 6, true),
        (2, 5, 4, false),
        (2, 5, 5, false),  // identical echo
    ])
    func defaultRuleOrdersByColVersionThenDbVersionThenNode(
        col: UInt64, db: UInt64, node: NodeId, accepted: Bool
    ) {
        let replica = TestCRDT(nodeId: 5)
        replica.mergeChanges([change("r", "a", "local", col: 2, db: 5, node: 5)])
        let result = replica.mergeChanges([change("r", "a", "remote", col: col, db: db, node: node)]
        )
        #expect(result.count == (accepted ? 1 : 0))
        #expect(replica.getRecord("r")?.fields["a"] == (accepted ? "remote" : "local"))
    }

    @Test func customRuleIsConsultedForColumnConflicts() {
        struct LowerNodeWins: MergeRule {
            func shouldAccept(
                localCol: UInt64, localDb: UInt64, localNode: NodeId,
                remoteCol: UInt64, remoteDb: UInt64, remoteNode: NodeId
            ) -> Bool { remoteNode < localNode }
        }
        let replica = TestCRDT(nodeId: 5)
        replica.insertOrUpdate("r", fields: [("a", "local")])
        let accepted = replica.mergeChanges(
            [change("r", "a", "remote", col: 1, db: 1, node: 2)], mergeRule: LowerNodeWins())
        #expect(accepted.count == 1)
        #expect(replica.getRecord("r")?.fields["a"] == "remote")
    }

    @Test func recordDeletionOfLiveRecordIsAlwaysAcceptedWithoutTheRule() {
        struct RejectEverything: MergeRule {
            func shouldAccept(
                localCol: UInt64, localDb: UInt64, localNode: NodeId,
                remoteCol: UInt64, remoteDb: UInt64, remoteNode: NodeId
            ) -> Bool { false }
        }
        let replica = TestCRDT(nodeId: 9)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        replica.insertOrUpdate("r", fields: [("a", 2)])
        let accepted = replica.mergeChanges(
            [change("r", nil, nil, col: .max, db: 1, node: 1)], mergeRule: RejectEverything())
        #expect(accepted.count == 1)
        #expect(replica.isTombstoned("r"))
        #expect(
            replica.getTombstone("r") == TombstoneInfo(dbVersion: 1, nodeId: 1, localDbVersion: 3))
    }

    @Test func changesForTombstonedRecordsAreDropped() {
        let replica = TestCRDT(nodeId: 1)
        replica.deleteRecord("r")
        let accepted = replica.mergeChanges([
            change("r", "a", 1, col: 100, db: 100, node: 100),
            change("r", nil, nil, col: .max, db: 100, node: 100),
        ])
        #expect(accepted.isEmpty)
        #expect(replica.getTombstone("r")?.nodeId == 1)
    }

    @Test func acceptedFieldDeletionRemovesFieldAndRecordsVersion() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1), ("b", 2)])
        replica.mergeChanges([change("r", "a", nil, col: 2, db: 7, node: 2)])
        #expect(replica.getRecord("r")?.fields == ["b": 2])
        #expect(replica.getRecord("r")?.columnVersions["a"]?.colVersion == 2)
        // A stale write to the deleted field loses against the kept version.
        replica.mergeChanges([change("r", "a", 5, col: 1, db: 99, node: 99)])
        #expect(replica.getRecord("r")?.fields["a"] == nil)
    }

    @Test func changesApplyOneAtATimeInOrder() {
        let replica = TestCRDT(nodeId: 1)
        let accepted = replica.mergeChanges([
            change("r", "a", 1, col: 1, db: 1, node: 2),
            change("r", "a", 2, col: 2, db: 2, node: 2),
            change("r", "a", 0, col: 1, db: 3, node: 3),
            change("r", nil, nil, col: .max, db: 4, node: 2),
            change("r", "a", 9, col: 9, db: 9, node: 2),
        ])
        #expect(accepted.map(\.localDbVersion) == [2, 3, 5])
        #expect(replica.isTombstoned("r"))
    }

    @Test func mergingTheSameChangesTwiceAcceptsNothingTheSecondTime() {
        let source = TestCRDT(nodeId: 1)
        var changes = source.insertOrUpdate("r", fields: [("a", 1), ("b", 2)])
        changes += [source.deleteField("r", fieldName: "a")].compactMap { $0 }
        changes += [source.deleteRecord("s")].compactMap { $0 }
        let replica = TestCRDT(nodeId: 2)
        #expect(replica.mergeChanges(changes).count == 4)
        #expect(replica.mergeChanges(changes).isEmpty)
    }
}
