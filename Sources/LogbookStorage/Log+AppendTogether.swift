extension Log {
    /// Appends `count` records as `append(count:describedBy:writtenBy:)` does, all into one
    /// batch: a batch is checked and kept whole or not at all, so a crash or power cut keeps
    /// every one of these records or none of them. The engine's transactions log this way.
    ///
    /// The pending batch is written first when the records would not fit beside it; the
    /// records may take the batch past `batchSizeTarget`, never past the batch limits
    /// (`Limits.batchRawSizeMax`, `Limits.batchRecordCountMax`). Records that cannot be one
    /// batch are refused with `.invalidArgument` before anything is appended.
    @discardableResult
    public func appendTogether(
        count: Int, describedBy describe: (Int) -> (byteCount: Int, version: UInt64),
        writtenBy write: (Int, UnsafeMutableRawPointer) -> Int
    ) throws(StorageError) -> Range<UInt64> {
        guard count > 0 else { return nextOffset..<nextOffset }
        try prepareToAppend()
        // Spelled only when refused: every transaction and save appends through here.
        func refusal() -> StorageError {
            StorageError(
                .invalidArgument,
                "\(count) records cannot be one batch: a batch takes at most "
                    + "\(Limits.batchRawSizeMax) bytes and \(Limits.batchRecordCountMax) records",
                path: directory, logOffset: nextOffset)
        }
        guard count <= Limits.batchRecordCountMax else { throw refusal() }
        let descriptions = (0..<count).map(describe)
        // What the records take at most: each is its bytes and two varints. Checked as it
        // grows, so the sum stays near the batch limit and cannot overflow a 32-bit Int.
        var bound = 0
        for description in descriptions {
            guard description.byteCount >= 0, description.byteCount <= Limits.recordSizeMax
            else { throw refusal() }
            bound += description.byteCount + 2 * Varint.sizeMax
            guard bound <= Limits.batchRawSizeMax else { throw refusal() }
        }
        if !hasBegunEpoch { try beginEpoch(version: descriptions[0].version) }
        // Read in place: a copy of the pending batch held here would make the append below
        // copy its bytes.
        if !appending.pending.isEmpty,
            appending.pending.rawSize + bound > Limits.batchRawSizeMax
                || appending.pending.recordCount + count > Limits.batchRecordCountMax
        {
            try flush()
        }
        let start = nextOffset
        let stop = appending.append(
            from: 0, to: count, carried: nil, epochBegun: true, batchSizeTarget: .max,
            describedBy: { descriptions[$0] }, writtenBy: write)
        guard case .finished = stop else {
            throw StorageError(
                .invalidArgument, "records measured to fit one batch did not (a bug in the log)",
                path: directory, logOffset: start)
        }
        if appending.pending.rawSize >= configuration.batchSizeTarget { try flushFullBatch() }
        return start..<nextOffset
    }
}
