extension Log {
    /// Appends one record with a caller-supplied version (the engine passes the change's
    /// local version); returns its offset. Buffers only: see `flush()` and `sync()`.
    ///
    /// Throws `.invalidArgument` for a record over `Limits.recordSizeMax`, and I/O errors
    /// from writing a full pending batch.
    @discardableResult
    public func append(_ record: UnsafeRawBufferPointer, version: UInt64) throws(StorageError)
        -> UInt64
    {
        try append(
            count: 1, describedBy: { _ in (record.count, version) },
            writtenBy: { _, pointer in record.writeBytes(to: pointer) }
        ).lowerBound
    }

    /// Appends an array of bytes as one record.
    @discardableResult
    public func append(_ record: [UInt8], version: UInt64) throws(StorageError) -> UInt64 {
        try append(
            count: 1, describedBy: { _ in (record.count, version) },
            writtenBy: { _, pointer in record.withUnsafeBytes { $0.writeBytes(to: pointer) } }
        ).lowerBound
    }

    /// Appends `count` records: for each index, `describe` gives the record's size in bytes
    /// and its version, and `write` stores exactly that many bytes at the pointer it is given
    /// (returning how many), straight into the pending batch. What `append(_:version:)` does
    /// per record, with its checks made once per call and no buffer between the encoder and
    /// the batch: the engine logs its changes this way. Returns the offsets they took.
    ///
    /// Each record is described once. `describe` and `write` must not call this log: they
    /// run within its access of its appending state, and a nested access traps. Throws as
    /// `append(_:version:)` does; the records before a failing one stay appended.
    @discardableResult
    public func append(
        count: Int, describedBy describe: (Int) -> (byteCount: Int, version: UInt64),
        writtenBy write: (Int, UnsafeMutableRawPointer) -> Int
    ) throws(StorageError) -> Range<UInt64> {
        var start = nextOffset
        guard count > 0 else { return start..<start }
        try prepareToAppend()
        var index = 0
        var carried: (byteCount: Int, version: UInt64)?
        while true {
            // The run's closures must not touch this log: they run within its access of
            // `appending`.
            let stop = appending.append(
                from: index, to: count, carried: carried, epochBegun: hasBegunEpoch,
                batchSizeTarget: configuration.batchSizeTarget, describedBy: describe,
                writtenBy: write)
            carried = nil
            switch stop {
            case .finished:
                return start..<nextOffset
            case .before(let next, let description):
                // This open's epoch begins at its first record; a batch that cannot take
                // the record is written first.
                if hasBegunEpoch {
                    try flush()
                } else {
                    try beginEpoch(version: description.version)
                    // The epoch's mark, if any, went first; the records start after it.
                    if next == 0 { start = nextOffset }
                }
                (index, carried) = (next, description)
            case .batchReachedTarget(let next):
                try flushFullBatch()
                index = next
            case .oversized(_, let byteCount):
                throw StorageError(
                    .invalidArgument,
                    "record of \(byteCount) bytes: a record takes 0 to \(Limits.recordSizeMax)",
                    path: directory, logOffset: nextOffset)
            }
        }
    }

    /// What every append checks first: the log is open and writable.
    func prepareToAppend() throws(StorageError) {
        guard !isClosed else {
            throw StorageError(.closed, "append to a closed log", path: directory)
        }
        try requireWritable("append")
    }

    /// Writes the batch being compressed, if any, then the pending batch, to the active
    /// segment (rolling first when it is full or old). Hands the bytes to the OS; does not
    /// fsync.
    public func flush() throws(StorageError) {
        guard compressing != nil || !appending.pending.isEmpty else { return }
        guard !isClosed else {
            throw StorageError(.closed, "flush of a closed log", path: directory)
        }
        try writeCompressedBatch()
        guard !appending.pending.isEmpty else { return }
        let payload = appending.pending.compressedPayload(hcLevel: configuration.hcLevel)
        try write(appending.pending, payload: payload)
        appending.pending.reset()
    }

    /// Deals with a pending batch that reached its target: hands it to another thread to
    /// compress and starts the next, after writing the one compressed before it
    /// (`LogConfiguration.compressesFullBatchesAhead`); or writes it now.
    func flushFullBatch() throws(StorageError) {
        guard configuration.compressesFullBatchesAhead else { return try flush() }
        try writeCompressedBatch()
        var full = spareBatch ?? BatchEncoder()
        spareBatch = nil
        swap(&full, &appending.pending)
        let compressor = self.compressor ?? BatchCompressor(hcLevel: configuration.hcLevel)
        self.compressor = compressor
        compressor.compress(full)
        compressing = full
    }

    /// Writes the batch compressed on another thread, once its payload is ready; keeps its
    /// emptied buffer for a later batch. On failure it stays, to be written by a later flush.
    private func writeCompressedBatch() throws(StorageError) {
        guard var batch = compressing, let compressor else { return }
        try write(batch, payload: compressor.payload())
        compressing = nil
        batch.reset()
        spareBatch = batch
    }

    /// Writes `batch`, whose compressed records are `payload`, after the active segment's
    /// last batch (rolling first when the segment is full or old).
    private func write(_ batch: BatchEncoder, payload: [UInt8]) throws(StorageError) {
        guard let baseOffset = batch.baseOffset else { return }
        if shouldRoll(adding: BatchHeader.size + payload.count) {
            try roll(nextBaseOffset: baseOffset)
        }
        let chained = batch.frame(payload, previousBatchCRC: active.lastBatchCRC)
        #if LOGBOOK_VERIFY
            verifyEncodedBatch(chained.bytes, header: chained.header, records: batch.raw)
        #endif
        let position = active.size
        zeroFillAhead(of: position + Int64(chained.bytes.count))
        try active.file.write(chained.bytes, at: position)
        active.index.noteBatch(
            chained.header, at: position, intervalBytes: configuration.indexIntervalBytes)
        active.lastBatchCRC = chained.header.batchCRC
        active.fileEnd = max(active.fileEnd, active.size)
        flushedOffset = batch.lastOffset + 1
        // So a roll's sync of the segment does not wait for all its bytes at once
        // (docs/storage.md). Best effort: the next sync reports what is wrong with the file.
        active.writeback.noteWritten(
            upTo: active.size, in: active.file, every: configuration.writebackAfterBytes)
    }

    /// Writes zeros past `end`, where the batch about to be written ends, when fewer than
    /// half of `zeroFillAheadBytes` are written there already: up to that many, within the
    /// segment's maximum size. Best effort: after a failure (a full disk) this segment goes
    /// on without, and the batch's own write reports what is wrong.
    private func zeroFillAhead(of end: Int64) {
        let ahead = Int64(configuration.zeroFillAheadBytes ?? 0)
        guard ahead > 0, !active.zeroFillStopped, active.fileEnd - end < ahead / 2 else {
            return
        }
        let start = max(end, active.fileEnd)
        let stop = min(end + ahead, max(end, configuration.segmentSizeMax))
        guard stop > start else { return }
        do throws(StorageError) {
            try active.file.write([UInt8](repeating: 0, count: Int(stop - start)), at: start)
            active.fileEnd = stop
        } catch {
            active.zeroFillStopped = true
        }
    }

    /// Cuts whatever follows the active segment's last batch (zeros written ahead, or bytes
    /// a failed write left), so a sealed or closed segment holds exactly its batches (the
    /// size the manifest records; an LZ4 stream). Returns whether it cut; not synced.
    @discardableResult
    func cutPastLastBatch() throws(StorageError) -> Bool {
        guard try active.file.size() > active.size else { return false }
        try active.file.truncate(to: active.size)
        active.fileEnd = active.size
        return true
    }

    /// Flushes and `fdatasync`s the active segment: everything appended so far is durable.
    public func sync() throws(StorageError) {
        if isReadOnly { return }  // nothing was written, so everything read is as durable
        try flush()
        guard durableOffset < flushedOffset else { return }
        let started = ContinuousClock.now
        try active.file.sync()
        metrics.syncDuration.record(since: started)
        durableOffset = flushedOffset
        active.writeback.noteSynced(upTo: active.size)
    }

    /// Flushes and returns what a group committer needs to make it durable outside any lock:
    /// the active file and the offset its sync will cover.
    public func flushForSync() throws(StorageError) -> (file: any StorageFile, offset: UInt64) {
        try flush()
        return (active.file, flushedOffset)
    }

    /// Records that a sync covering `offset` completed.
    public func noteDurable(through offset: UInt64) {
        precondition(offset <= flushedOffset, "durable \(offset) beyond flushed \(flushedOffset)")
        durableOffset = max(durableOffset, offset)
        // A sync covering every flushed record began after the active segment's last write
        // (each write moves `flushedOffset`): all its bytes are synced, and a write-back of
        // them would be wasted.
        if offset == flushedOffset { active.writeback.noteSynced(upTo: active.size) }
    }

    /// Flushes and seals the active segment now, when it holds anything, so maintenance
    /// passes (which only rewrite sealed segments) can reach its records.
    public func sealActiveSegment() throws(StorageError) {
        if let failure = try sealActiveSegmentLeavingItWritable() { throw failure }
    }

    /// `sealActiveSegment()` for maintenance, which must never stop writes: a failure past
    /// the active segment's sync (writing its index, creating the next segment, recording
    /// them in the manifest: a full disk, say) is returned, and the log stays writable
    /// (`startSegment(at:)`). Throws only what may have broken the log: a failed flush or
    /// sync, or a half-made segment that could not be removed.
    public func sealActiveSegmentLeavingItWritable() throws(StorageError) -> StorageError? {
        guard !isClosed else {
            throw StorageError(.closed, "seal of a closed log", path: directory)
        }
        try requireWritable("seal")
        try flush()
        guard active.size > 0 else { return nil }
        try syncForRoll()
        do throws(RollFailure) { try startSegment(at: nextOffset) } catch {
            switch error {
            case .leftWritable(let failure): return failure
            case .broke(let failure): throw failure
            }
        }
        return nil
    }

    private func shouldRoll(adding batchSize: Int) -> Bool {
        guard active.size > 0 else { return false }
        if active.size + Int64(batchSize) > configuration.segmentSizeMax { return true }
        if let ageMax = configuration.segmentAgeMaxNanoseconds, let clock,
            clock.nowNanoseconds() &- active.createdAtNanoseconds >= ageMax
        {
            return true
        }
        return false
    }

    /// Seals the active segment (sync, write its index) and starts a new one at
    /// `nextBaseOffset`, making the new file's name durable before any record goes in, then
    /// records both in the manifest (a crash before that leaves a roll recovery recognises:
    /// segments after the manifest's active one).
    func roll(nextBaseOffset: UInt64) throws(StorageError) {
        precondition(nextBaseOffset >= active.index.nextOffset, "roll back to \(nextBaseOffset)")
        try syncForRoll()
        do throws(RollFailure) { try startSegment(at: nextBaseOffset) } catch {
            switch error {
            case .leftWritable(let failure), .broke(let failure): throw failure
            }
        }
    }

    /// The first half of a roll: the active segment cut to its last batch and synced.
    private func syncForRoll() throws(StorageError) {
        _ = try cutPastLastBatch()
        try active.file.sync()
        durableOffset = flushedOffset
    }

    /// How the second half of a roll failed.
    enum RollFailure: Error {
        /// The log is writable: the roll did not happen, or only the manifest is behind.
        case leftWritable(StorageError)
        /// A new segment file could not be removed again: a reopen would find it inside
        /// the active segment's offsets.
        case broke(StorageError)
    }

    /// The second half of a roll, after `syncForRoll()`: writes the synced segment's index,
    /// creates the next segment at `nextBaseOffset`, switches to it and records both in the
    /// manifest. Whatever fails, the log stays writable. Before the switch nothing changed
    /// but the index (rewritten by the next roll; an open rebuilds one that does not match),
    /// and a new file created is removed. After it only the manifest is behind: the next
    /// manifest write brings it up to date, and a reopen before that reads a roll.
    private func startSegment(at nextBaseOffset: UInt64) throws(RollFailure) {
        let newPath = path(ofSegment: nextBaseOffset)
        let newFile: any StorageFile
        do throws(StorageError) {
            try writeIndex(active.index)
            newFile = try fileSystem.open(newPath, mode: .createNew)
        } catch {
            throw .leftWritable(error)
        }
        do throws(StorageError) { try fileSystem.syncDirectory(directory) } catch {
            try? newFile.close()  // empty and never written: nothing to lose
            do throws(StorageError) { try fileSystem.removeFile(newPath) } catch {
                throw .broke(error)
            }
            throw .leftWritable(error)
        }
        let previous = active.file
        sealed.append(active.index)
        active = ActiveSegment(
            file: newFile, index: SegmentIndex(baseOffset: nextBaseOffset),
            lastBatchCRC: chain.firstPreviousCRC(ofSegmentAt: nextBaseOffset),
            createdAtNanoseconds: clock?.nowNanoseconds() ?? 0)
        do throws(StorageError) {
            try previous.close()
            try writeManifest()
        } catch {
            throw .leftWritable(error)
        }
    }

    /// Records the current segments in the manifest, durably.
    func writeManifest() throws(StorageError) {
        try currentManifest().write(directory: directory, fileSystem: fileSystem)
    }

    /// The manifest of the log as it stands, with `pendingSwap` when one is being made.
    func currentManifest(pendingSwap: SegmentManifest.PendingSwap? = nil) -> SegmentManifest {
        SegmentManifest(
            chain: chain, history: history, sealed: sealed,
            activeBaseOffset: active.index.baseOffset, pendingSwap: pendingSwap)
    }

    /// Begins a new history (`LogHistory`) starting at the log's end, durably, before a
    /// rewrite removes records (tombstone GC): from then on a snapshot of the state before
    /// it names an earlier history and is set aside. A crash before the rewrite finished
    /// leaves the new history and the old records: nothing is lost, the snapshots of the
    /// old history are set aside all the same (they are caches).
    public func beginHistory() throws(StorageError) {
        try requireWritable("beginning a history")
        let previous = history
        history = .beginning(at: nextOffset)
        do throws(StorageError) { try writeManifest() } catch {
            history = previous
            throw error
        }
    }

    /// Writes a segment's index beside it (temporary file, then rename). Not fsynced: an
    /// index is derived data, checked on load and rebuilt when damaged.
    func writeIndex(_ index: SegmentIndex) throws(StorageError) {
        try fileSystem.replaceFile(
            directory + "/" + SegmentFileName.index(baseOffset: index.baseOffset),
            with: index.encoded(), durable: false)
    }

    #if LOGBOOK_VERIFY
        /// Decode-after-encode: the batch about to be written must read back as itself.
        private func verifyEncodedBatch(_ bytes: [UInt8], header: BatchHeader, records: [UInt8]) {
            bytes.withUnsafeBytes { all in
                guard case .success(let parsed) = BatchHeader.decode(all) else {
                    preconditionFailure("encoded batch header does not parse")
                }
                precondition(parsed == header, "encoded batch header differs")
                var raw: [UInt8] = []
                let failure = BatchDecoder.unpack(
                    header: parsed,
                    storedPayload: UnsafeRawBufferPointer(rebasing: all[BatchHeader.size...]),
                    into: &raw)
                precondition(failure == nil, "encoded batch does not unpack: \(failure ?? "")")
                precondition(raw == records, "encoded batch unpacks to different records")
            }
        }
    #endif
}
