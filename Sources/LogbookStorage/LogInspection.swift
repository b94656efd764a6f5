/// What one segment holds, as found by reading it batch by batch.
public struct SegmentSummary: Hashable, Sendable {
    /// The segment's file name.
    public var name: String
    /// True for the active (last) segment.
    public var isActive: Bool
    /// The offset in its name.
    public var baseOffset: UInt64
    /// The offset after its last record.
    public var nextOffset: UInt64
    /// Bytes of valid batches read.
    public var sizeBytes: Int64 = 0
    /// Batches read.
    public var batchCount = 0
    /// Records read.
    public var recordCount = 0
    /// Uncompressed payload bytes.
    public var rawBytes: Int64 = 0
    /// Stored payload bytes (LZ4 frames, without batch headers).
    public var storedBytes: Int64 = 0
    /// Smallest and largest record version, when the segment holds records.
    public var versionRange: ClosedRange<UInt64>?
    /// The first problem found, which stopped the reading of this segment.
    public var problem: StorageError?
    /// Zero bytes in the file after its last batch: the active segment's zeros written
    /// ahead (`LogConfiguration.zeroFillAheadBytes`), or left by a crash. 0 for sealed ones.
    public var zeroBytesAfterBatches: Int64 = 0
}

extension Log {
    /// Reads every batch of every segment (checking CRCs, frames and chains) and
    /// summarizes each. A damaged segment gets a `problem` and the walk
    /// goes on with the next one. `progress(bytesRead, bytesTotal)` is called per batch.
    ///
    /// Writes the pending batch first. Complexity: reads the whole log once.
    public func inspect(
        progress: ((Int64, Int64) -> Void)? = nil
    ) throws(StorageError) -> [SegmentSummary] {
        try flush()
        let total = sizeBytes
        var done: Int64 = 0
        var summaries: [SegmentSummary] = []
        for index in sealed + [active.index] {
            let name = SegmentFileName.segment(baseOffset: index.baseOffset)
            let path = directory + "/" + name
            var summary = SegmentSummary(
                name: name, isActive: index.baseOffset == active.index.baseOffset,
                baseOffset: index.baseOffset, nextOffset: index.baseOffset)
            let file = try fileSystem.open(path, mode: .read)
            defer { try? file.close() }  // read-only: a failed close loses nothing
            // Up to the end recovery established: the whole file for sealed segments (their
            // size is checked against the manifest), and for the active one the last valid
            // batch — a torn tail after it was already reported by recovery (and cut, unless
            // the log is read-only).
            let reader = SegmentReader(
                file: file, from: 0, to: index.segmentSize,
                previousBatchCRC: chain.expectedFirstPreviousCRC(ofSegmentAt: index.baseOffset))
            walk: while true {
                switch try reader.next() {
                case .end:
                    break walk
                case .invalid(let position, let reason, let header):
                    summary.problem = StorageError(
                        .corruption, reason, path: path, byteOffset: position,
                        logOffset: header?.baseOffset)
                    break walk
                case .batch(let header, _):
                    summary.batchCount += 1
                    summary.recordCount += Int(truncatingIfNeeded: header.recordCount)
                    summary.rawBytes += Int64(header.rawLength)
                    summary.storedBytes += Int64(header.storedLength)
                    summary.sizeBytes += Int64(header.totalSize)
                    summary.nextOffset = header.nextOffset
                    let low = min(
                        summary.versionRange?.lowerBound ?? header.minVersion, header.minVersion)
                    let high = max(
                        summary.versionRange?.upperBound ?? header.maxVersion, header.maxVersion)
                    summary.versionRange = low...high
                    done += Int64(header.totalSize)
                    progress?(done, total)
                }
            }
            if summary.isActive { summary.zeroBytesAfterBatches = active.fileEnd - active.size }
            summaries.append(summary)
        }
        return summaries
    }

    /// Checks every batch of every segment; throws the first problem found, after reading
    /// everything (so the summaries of intact segments are still produced by `inspect`).
    public func verify(progress: ((Int64, Int64) -> Void)? = nil) throws(StorageError)
        -> [SegmentSummary]
    {
        let summaries = try inspect(progress: progress)
        if let problem = summaries.lazy.compactMap(\.problem).first { throw problem }
        return summaries
    }
}
