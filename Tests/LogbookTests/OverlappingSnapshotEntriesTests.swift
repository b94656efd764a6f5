import LogbookCRDT
import LogbookStorage
import Testing

@testable import Logbook

// A snapshot whose entries overlap (one column twice, a record's column and its tombstone,
// one tombstone twice) restores to fewer entries than it holds, whatever its header says:
// the loader must refuse it even when its header's count and check agree with its bytes, as
// a writer with a bug, or a hand-made file, would make them. Nor may an entry carry what the
// restored state cannot keep (flags).
@Suite struct OverlappingSnapshotEntriesTests {
    /// Two replicas' entries written as one snapshot, with a header computed from them.
    private struct TwoReplicas: ReplicaContents {
        let first: CRDT<String, String, Value>
        let second: CRDT<String, String, Value>

        func forEachRecord(_ body: (String, Record<String, Value>) throws -> Void) rethrows {
            try first.forEachRecord(body)
            try second.forEachRecord(body)
        }
        func forEachTombstone(_ body: (String, TombstoneInfo) throws -> Void) rethrows {
            try first.forEachTombstone(body)
            try second.forEachTombstone(body)
        }
        func getClock() -> LogicalClock {
            first.getClock().currentTime() > second.getClock().currentTime()
                ? first.getClock() : second.getClock()
        }
        func getNodeId() -> NodeId { 7 }
    }

    /// A replica of node 7 with `lamp` written `writes` times (so its versions differ from
    /// another's), deleted when `deleted`.
    private static func replica(writes: Int, deleted: Bool) -> CRDT<String, String, Value> {
        let crdt = CRDT<String, String, Value>(nodeId: 7)
        for index in 0..<writes {
            crdt.insertOrUpdate("lamp", fields: [("on", .int(Int64(index)))])
        }
        if deleted { _ = crdt.deleteRecord("lamp") }
        return crdt
    }

    @Test(arguments: [
        ("one column twice", false, false), ("a column and its record's tombstone", false, true),
        ("one tombstone twice", true, true),
    ])
    func overlappingEntriesAreRefused(overlap: String, firstDeleted: Bool, secondDeleted: Bool)
        throws
    {
        let replicas = TwoReplicas(
            first: Self.replica(writes: 1, deleted: firstDeleted),
            second: Self.replica(writes: 3, deleted: secondDeleted))
        let (bytes, header) = ReplicaSnapshotCodec.encode(
            replicas, offset: 10, epochId: 1, identity: .random(), historyId: 1, markNonce: 1)
        #expect(header.entryCount == 2, "\(overlap)")
        switch ReplicaSnapshotCodec.decode(bytes, nodeId: 7) {
        case .success: Issue.record("\(overlap): a snapshot of overlapping entries was loaded")
        case .failure(let rejection):
            #expect(rejection.reason.contains("some overlap"), "\(overlap): \(rejection.reason)")
        }
        // Either replica alone loads: the refusal is the overlap's.
        let (alone, _) = ReplicaSnapshotCodec.encode(
            replicas.second, offset: 10, epochId: 1, identity: .random(), historyId: 1, markNonce: 1
        )
        #expect(throws: Never.self) { try ReplicaSnapshotCodec.decode(alone, nodeId: 7).get() }
    }

    /// The restored state keeps no flags, so an entry carrying any is refused, not loaded
    /// without them; with none, the same entry loads.
    @Test(arguments: [UInt32(0), 1])
    func anEntryCarryingFlagsIsRefused(flags: UInt32) throws {
        var record: [UInt8] = []
        let change = Change<String, String, Value>(
            recordId: "lamp", colName: "on", value: .bool(true), colVersion: 1, dbVersion: 1,
            nodeId: 7, localDbVersion: 1, flags: flags)
        ChangeRecordCodec.encode(.change(change), into: &record)
        var body = ReplicaSnapshotBodyWriter()
        body.add(record, version: 1)
        body.closeBatch()
        let header = ReplicaSnapshotFile(
            nodeId: 7, offset: 10, epochId: 1, clock: 1, digest: StateDigest(high: 0, low: 0),
            check: body.check, entryCount: body.count, bodyLength: UInt64(body.bytes.count),
            identity: .random(), historyId: 1, lastBatchCRC: body.lastBatchCRC)
        let result = ReplicaSnapshotCodec.decode(header.encodedHeader() + body.bytes, nodeId: 7)
        switch (result, flags) {
        case (.success(let (_, state)), 0): #expect(state.getChangesSince(0).count == 1)
        case (.failure(let rejection), 1):
            #expect(rejection.reason.contains("an entry with flags 1"), "\(rejection.reason)")
        default: Issue.record("flags \(flags): \(result)")
        }
    }
}
