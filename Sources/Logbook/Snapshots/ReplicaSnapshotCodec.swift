import LogbookCRDT
import LogbookStorage

/// Writes a replica's state as a snapshot file's bytes, and reads them back into a replica
/// state that proves itself (`ReplicaSnapshotFile` has the layout).
enum ReplicaSnapshotCodec {
    /// The whole file for `replica`'s state, covering the log below `offset`.
    static func encode(
        _ replica: some ReplicaContents, offset: UInt64, epochId: UInt64, identity: LogIdentity,
        historyId: UInt64, markNonce: UInt64
    ) -> (bytes: [UInt8], header: ReplicaSnapshotFile) {
        var body = ReplicaSnapshotBodyWriter()
        ReplicaStateEntries.forEach(replica) { record, version in
            body.add(record, version: version)
        }
        body.closeBatch()
        let header = ReplicaSnapshotFile(
            nodeId: replica.getNodeId(), offset: offset, epochId: epochId,
            clock: replica.getClock().currentTime(), digest: StateDigest(of: replica),
            check: body.check, entryCount: body.count, bodyLength: UInt64(body.bytes.count),
            identity: identity, historyId: historyId, markNonce: markNonce,
            lastBatchCRC: body.lastBatchCRC)
        return (header.encodedHeader() + body.bytes, header)
    }

    /// Reads a whole file into a new replica state for `nodeId`; says why when the bytes do
    /// not prove themselves: header, batch framing and checksums, every change record, the
    /// entries' count and check (an order-independent hash sum) against the header's, the
    /// clock, and the restored state's entry count.
    static func decode(_ bytes: [UInt8], nodeId: NodeId) -> Result<
        (ReplicaSnapshotFile, ReplicaState), CheckpointRejection
    > {
        bytes.withUnsafeBytes { buffer in
            var header: ReplicaSnapshotFile
            switch ReplicaSnapshotFile.decodeHeader(buffer) {
            case .failure(let rejection): return .failure(rejection)
            case .success(let decoded): header = decoded
            }
            guard header.nodeId == nodeId else {
                return .failure(.init("taken by node \(header.nodeId), this is node \(nodeId)"))
            }
            let body = UnsafeRawBufferPointer(rebasing: buffer[header.encodedHeaderSize...])
            if let rejection = header.bodyLengthRejection(byteCount: UInt64(body.count)) {
                return .failure(rejection)
            }
            let crdt = ReplicaState(nodeId: nodeId)
            if let reason = restoreBody(body, header: header, into: crdt) {
                return .failure(.init(reason))
            }
            guard crdt.getClock().currentTime() == header.clock else {
                return .failure(
                    .init(
                        "restored clock \(crdt.getClock().currentTime()), header says \(header.clock)"
                    ))
            }
            // The entries read are the ones written (their check, in the reading stage).
            // Restored into an empty state, each lands as an entry of its own unless it
            // overlaps another, which leaves fewer: so a state holding as many entries as
            // were read holds exactly those, field for field. The check covers every field
            // the `StateDigest` covers and more; the header's digest was computed from the
            // state the entries were written from, so it is not recomputed (it needs a sort).
            let restored = ReplicaStateEntries.count(of: crdt)
            guard restored == header.entryCount else {
                return .failure(
                    .init(
                        "the entries restore to \(restored) entries, not \(header.entryCount): "
                            + "some overlap"))
            }
            if header.version < ReplicaSnapshotFile.firstVersionWithCurrentDigest {
                // Format 1 recorded an earlier definition of the digest; this state is proven
                // by its entry check, so its digest is taken from it.
                header.digest = StateDigest(of: crdt)
            }
            return .success((header, crdt))
        }
    }

    /// Unpacks every batch of `body` and restores its changes; returns why it failed.
    /// Unpacking and decoding run on a thread of their own for bodies over 1 MiB.
    private static func restoreBody(
        _ body: UnsafeRawBufferPointer, header: ReplicaSnapshotFile,
        into crdt: ReplicaState
    ) -> String? {
        do {
            try PipelinedStages.run(
                inline: body.count < 1 << 20,
                produce: { emit in try decodeBatches(body, header: header, emit) },
                consume: { (changes: [Change<String, String, Value>]) in
                    crdt.restore(changes)
                })
        } catch let rejection as CheckpointRejection {
            return rejection.reason
        } catch {
            return "\(error)"
        }
        crdt.advanceClock(to: header.clock)
        return nil
    }

    /// The reading stage: each batch checked (header, sequence, CRC, framing) and decoded;
    /// at the end, the entries' count and check against the header's. Hashing here, on the
    /// reading thread, keeps the check off the restoring one, the slower stage.
    private static func decodeBatches(
        _ body: UnsafeRawBufferPointer, header: ReplicaSnapshotFile,
        _ emit: ([Change<String, String, Value>]) -> Bool
    ) throws(CheckpointRejection) {
        var position = 0
        var previousCRC: UInt32 = 0
        var expectedOffset: UInt64 = 0
        var raw: [UInt8] = []
        var columnNames = RecentShortStrings()
        var check = StateDigest(high: 0, low: 0)
        func failure(_ reason: String) -> CheckpointRejection {
            CheckpointRejection("batch at body byte \(position): \(reason)")
        }
        while position < body.count {
            let remaining = UnsafeRawBufferPointer(rebasing: body[position...])
            let batch: BatchHeader
            switch BatchHeader.decode(remaining) {
            case .failure(let reason): throw failure("\(reason)")
            case .success(let decoded): batch = decoded
            }
            guard batch.totalSize <= remaining.count else { throw failure("runs past the file") }
            guard batch.previousBatchCRC == previousCRC, batch.baseOffset == expectedOffset else {
                throw failure("out of sequence")
            }
            let stored = UnsafeRawBufferPointer(
                rebasing: remaining[BatchHeader.size..<batch.totalSize])
            if let reason = BatchDecoder.unpack(header: batch, storedPayload: stored, into: &raw) {
                throw failure(reason)
            }
            var changes: [Change<String, String, Value>] = []
            changes.reserveCapacity(Int(truncatingIfNeeded: batch.recordCount))
            var recordFailure: String?
            let framing = raw.withUnsafeBytes { payload in
                BatchDecoder.forEachRecord(payload) { _, record in
                    check.add(hashing: record)
                    // A new value per entry, which the batch takes over (as in a replay).
                    var change = ChangeRecordCodec.blankChange()
                    switch ChangeRecordCodec.decode(
                        record, into: &change, columnNames: &columnNames)
                    {
                    // A restored state keeps no flags, so an entry with any would not be
                    // restored field for field; the writer sets none.
                    case .change where change.flags != 0:
                        recordFailure = "an entry with flags \(change.flags)"
                    case .change: changes.append(consume change)
                    case .clock: recordFailure = "a clock record among the entries"
                    case .failure(let failure): recordFailure = failure.description
                    }
                    return recordFailure == nil
                }
            }
            if let reason = framing ?? recordFailure { throw failure(reason) }
            guard emit(changes) else { return }
            previousCRC = batch.batchCRC
            expectedOffset = batch.nextOffset
            position += batch.totalSize
        }
        guard previousCRC == header.lastBatchCRC, expectedOffset == header.entryCount else {
            throw CheckpointRejection(
                "the body ends after \(expectedOffset) entries, header says \(header.entryCount)")
        }
        guard check == header.check else {
            throw CheckpointRejection("the entries' check does not match the header's")
        }
    }
}
