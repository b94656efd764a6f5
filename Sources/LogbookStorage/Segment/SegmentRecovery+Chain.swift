// How recovery tells a segment of another log, or of another place in this one, from a
// torn write: by what its first batch chains from (`SegmentChain`).
extension SegmentRecovery {
    /// A first batch that is whole (its own CRC holds) but chains from another seed was
    /// not torn: the segment is another log's, or was renamed from another base offset.
    /// Cutting it as a torn tail would destroy it, and reading it would serve it.
    static func refuseForeignFirstBatch(
        _ file: any StorageFile, torn: (position: Int64, reason: String, header: BatchHeader?),
        seed: UInt32?, path: String
    ) throws(StorageError) {
        guard torn.position == 0, let seed, let header = torn.header,
            header.previousBatchCRC != seed,
            try isWholeBatch(file, at: 0, header: header)
        else { return }
        throw StorageError(
            .corruption, foreignFirstBatch(header, seed: seed), path: path, byteOffset: 0,
            logOffset: header.baseOffset)
    }

    /// Why a segment whose first batch chains from `header.previousBatchCRC`, not `seed`,
    /// is refused.
    static func foreignFirstBatch(_ header: BatchHeader, seed: UInt32) -> String {
        "the segment's first batch chains from 0x\(zeroPaddedHex(header.previousBatchCRC)), not "
            + "from this log's seed 0x\(zeroPaddedHex(seed)) for this segment: it belongs to "
            + "another log, or to another place in this one; move it out of the directory"
    }

    /// Whether the batch with `header` at `position` is all there and its CRC holds.
    static func isWholeBatch(
        _ file: any StorageFile, at position: Int64, header: BatchHeader
    ) throws(StorageError) -> Bool {
        let bytes = try file.read(at: position, count: header.totalSize)
        guard bytes.count == header.totalSize else { return false }
        return bytes.withUnsafeBytes {
            header.computeCRC(payload: UnsafeRawBufferPointer(rebasing: $0[BatchHeader.size...]))
                == header.batchCRC
        }
    }

    /// The previous CRC the first batch of the segment at `base` names; nil when the
    /// segment is empty or its first header does not parse (its own checks say why).
    static func firstPreviousCRC(
        _ base: UInt64, directory: String, fileSystem: any FileSystem
    ) throws(StorageError) -> UInt32? {
        try readingSegment(base, directory: directory, fileSystem: fileSystem) {
            (file) throws(StorageError) in try header(in: file, at: 0)?.previousBatchCRC
        }
    }

    /// The batch header at `position`, when one is there and parses.
    static func header(in file: any StorageFile, at position: Int64)
        throws(StorageError) -> BatchHeader?
    {
        let bytes = try file.read(at: position, count: BatchHeader.size)
        guard bytes.count == BatchHeader.size,
            case .success(let header) = bytes.withUnsafeBytes({ BatchHeader.decode($0) })
        else { return nil }
        return header
    }
}
