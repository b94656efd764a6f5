import LogbookCRDT
import Testing

// compactTombstones forgets deletions strictly older than the acknowledged version, and a
// forgotten id is a fresh record again.
@Suite struct TombstoneCompactionTests {
    @Test func removesOnlyTombstonesStrictlyBelowTheVersion() {
        let replica = TestCRDT(nodeId: 1)
        replica.deleteRecord("one")  // db 1
        replica.deleteRecord("two")  // db 2
        replica.deleteRecord("three")  // db 3
        #expect(replica.compactTombstones(minAcknowledgedVersion: 2) == 1)
        #expect(!replica.isTombstoned("one"))
        #expect(replica.isTombstoned("two"))
        #expect(replica.tombstoneCount() == 2)
    }

    @Test func compactedIdIsWritableAgainFromColumnVersionOne() {
        let replica = TestCRDT(nodeId: 1)
        replica.insertOrUpdate("r", fields: [("a", 1)])
        replica.insertOrUpdate("r", fields: [("a", 2)])
        replica.deleteRecord("r")
        replica.compactTombstones(minAcknowledgedVersion: .max)
        let changes = replica.insertOrUpdate("r", fields: [("a", 3)])
        #expect(changes.map(\.colVersion) == [1])
        #expect(replica.getRecord("r")?.fields == ["a": 3])
    }
}
