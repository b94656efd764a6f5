import LogbookCRDT
import LogbookStorage

// The snapshot codec is internal to Logbook: scripts/fuzz.sh builds this package for
// debugging, which compiles Logbook with testability.
@testable import Logbook

/// A replica snapshot as a hostile directory could hold it. Random bytes almost never pass a
/// header's and every batch's CRC, so the input is mostly read as the body's records: the
/// target frames them in valid batches under a header whose counts, checksums and entry
/// check are right, and the fuzzer reaches the restore, the clock and the state check behind
/// them (docs/format/replica-snapshot.md).
extension FuzzTarget {
    /// The node every fuzzed snapshot claims to be taken by.
    static let snapshotNode: NodeId = 1
    /// Entries framed per input: enough for every path, few enough to stay fast.
    static let snapshotEntriesMax = 4096

    /// The whole input is tried as a file; then its first eight bytes give the header's
    /// clock and the rest is read as record framing (a payload of log batches), whose records
    /// become the entries. What loads must keep the state's invariants, and must write a
    /// snapshot that loads to the same state and writes the same bytes again.
    static func replicaSnapshot(_ bytes: UnsafeRawBufferPointer) {
        _ = ReplicaSnapshotCodec.decode(Array(bytes), nodeId: snapshotNode)
        guard bytes.count >= 8 else { return }
        let clock = bytes.loadUnaligned(as: UInt64.self).littleEndian
        var entries: [[UInt8]] = []
        _ = BatchDecoder.forEachRecord(UnsafeRawBufferPointer(rebasing: bytes[8...])) {
            _, record in
            entries.append(Array(record))
            return entries.count < snapshotEntriesMax
        }
        let file = snapshotFile(holding: entries, clock: clock)
        guard
            case .success(let (header, state)) = ReplicaSnapshotCodec.decode(
                file, nodeId: snapshotNode)
        else { return }
        state.checkInvariants()
        let written = ReplicaSnapshotCodec.encode(
            state, offset: header.offset, epochId: header.epochId,
            identity: header.identity ?? LogIdentity(high: 0, low: 0), historyId: header.historyId,
            markNonce: header.markNonce)
        guard
            case .success(let (_, reloaded)) = ReplicaSnapshotCodec.decode(
                written.bytes, nodeId: snapshotNode)
        else { preconditionFailure("a loaded snapshot, written again, does not load") }
        precondition(
            StateDigest(of: reloaded) == StateDigest(of: state), "the reloaded state differs")
        let writtenAgain = ReplicaSnapshotCodec.encode(
            reloaded, offset: header.offset, epochId: header.epochId,
            identity: header.identity ?? LogIdentity(high: 0, low: 0), historyId: header.historyId,
            markNonce: header.markNonce)
        precondition(writtenAgain.bytes == written.bytes, "one state wrote two different files")
    }

    /// A snapshot file whose framing is right for `entries`: batches numbered from 0 and
    /// chained, each record's version read from its key, the entry check their hash sum.
    private static func snapshotFile(holding entries: [[UInt8]], clock: UInt64) -> [UInt8] {
        // Small batches, so that several batches and their chaining are exercised.
        var body = ReplicaSnapshotBodyWriter(batchRawTarget: 512)
        for entry in entries {
            let version = entry.withUnsafeBytes { ChangeRecordCodec.readKey($0)?.localDbVersion }
            body.add(entry, version: version ?? 0)
        }
        body.closeBatch()
        let header = ReplicaSnapshotFile(
            nodeId: snapshotNode, offset: 0, epochId: 0, clock: clock,
            digest: StateDigest(high: 0, low: 0), check: body.check, entryCount: body.count,
            bodyLength: UInt64(body.bytes.count), lastBatchCRC: body.lastBatchCRC)
        return header.encodedHeader() + body.bytes
    }
}
