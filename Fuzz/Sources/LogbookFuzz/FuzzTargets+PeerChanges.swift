import LogbookCRDT
import LogbookStorage

// The admission checks are internal to Logbook: scripts/fuzz.sh builds this package for
// debugging, which compiles Logbook with testability.
@testable import Logbook

/// A peer's changes as a hostile peer could send them: its batches' CRCs are no defence (it
/// computes them), so the input is read as the records inside. Each change that decodes is
/// checked by the admission every peer's and client's changes pass; what is admitted is
/// merged, in two calls, into the specialized state and into the crdt-lite-compatible
/// `CRDT`. Differential: both must accept the same changes and end in the same state, and
/// the state must keep its invariants.
extension FuzzTarget {
    /// Changes read per input: enough for every path, few enough to stay fast.
    static let peerChangesMax = 4096
    /// The node receiving them.
    static let receivingNode: NodeId = 1

    static func peerChanges(_ bytes: UnsafeRawBufferPointer) {
        var changes: [Change<String, String, Value>] = []
        var scratch = ChangeRecordCodec.blankChange()
        _ = BatchDecoder.forEachRecord(bytes) { _, record in
            if case .change = ChangeRecordCodec.decode(record, into: &scratch) {
                changes.append(scratch)
            }
            return changes.count < peerChangesMax
        }
        do {
            try ChangeAdmission.checkRemote(changes)
            try ChangeAdmission.checkClockRoom(clock: 0, merging: changes)
        } catch {
            return
        }
        let reference = CRDT<String, String, Value>(nodeId: receivingNode)
        let state = ReplicaState(nodeId: receivingNode)
        let half = changes.count / 2
        // The second call merges over what the first left, as a follower's pulls do.
        for part in [changes[..<half], changes[half...]] {
            precondition(
                state.mergeChanges(Array(part)) == reference.mergeChanges(Array(part)),
                "the states accepted different changes")
        }
        let data = state.getData()
        let referenceData = reference.getData()
        precondition(data == referenceData, "the records differ")
        precondition(
            data.mapValues(\.columnVersions) == referenceData.mapValues(\.columnVersions),
            "the column versions differ")
        precondition(state.getTombstones() == reference.getTombstones(), "the tombstones differ")
        precondition(state.getClock() == reference.getClock(), "the clocks differ")
        state.checkInvariants()
    }
}
