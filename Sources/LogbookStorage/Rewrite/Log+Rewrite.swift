extension Log {
    /// The sealed segments, oldest first (the active one is never rewritten).
    public var sealedSegments: [SegmentIndex] { sealed }

    /// The run of sealed segments `range` (indices into `sealedSegments`), with the offset
    /// where it ends: the base of the next segment. Take it under the owner's lock.
    public func sealedRun(_ range: Range<Int>) -> SegmentRun {
        precondition(
            !range.isEmpty && range.lowerBound >= 0 && range.upperBound <= sealed.count,
            "run \(range) of \(sealed.count) sealed segments")
        let end =
            range.upperBound < sealed.count
            ? sealed[range.upperBound].baseOffset : active.index.baseOffset
        return SegmentRun(segments: Array(sealed[range]), endOffset: end, chain: chain)
    }

    /// Phase 2 of the crash-safe swap: replaces the run's segments by the rewritten one.
    ///
    /// Steps, each made durable by a directory fsync before the next, so that an open after
    /// a crash at any point can finish or undo the swap from the file names and the
    /// manifest (`SegmentRecovery`): record the swap in the manifest; rename `.cleaned` to
    /// `.swap` (the rewrite is now authoritative);
    /// rename every replaced segment to `.deleted`; rename `.swap` to the final segment
    /// name; remove the `.deleted` files; write the new index; record the new segments in
    /// the manifest.
    ///
    /// Throws `.invalidArgument` when the log's sealed segments no longer start with the run
    /// (another rewrite got there first); the `.cleaned` file is then removed.
    public func installRewrite(_ rewrite: RewrittenRun) throws(StorageError) {
        try requireWritable("a segment swap")
        let run = rewrite.run
        let cleanedPath =
            directory + "/"
            + SegmentFileName.cleaned(baseOffset: run.baseOffset, endOffset: run.endOffset)
        guard let start = sealed.firstIndex(where: { $0.baseOffset == run.baseOffset }),
            start + run.segments.count <= sealed.count,
            Array(sealed[start..<(start + run.segments.count)]) == run.segments
        else {
            try? fileSystem.removeFile(cleanedPath)  // an orphan rewrite; open would remove it too
            throw StorageError(
                .invalidArgument, "the segments of this rewrite changed since it was made",
                path: cleanedPath)
        }
        let swapPath =
            directory + "/"
            + SegmentFileName.swap(baseOffset: run.baseOffset, endOffset: run.endOffset)
        // The manifest records the swap before it becomes authoritative: recovery applies a
        // swap file only if it is this one.
        do throws(StorageError) {
            try currentManifest(
                pendingSwap: SegmentManifest.PendingSwap(
                    range: run.baseOffset..<run.endOffset, sizeBytes: rewrite.index.segmentSize,
                    lastBatchCRC: rewrite.lastBatchCRC)
            ).write(directory: directory, fileSystem: fileSystem)
            try fileSystem.rename(cleanedPath, to: swapPath)
        } catch {
            // Not authoritative yet (no swap file): the rewrite would hold its space until
            // the next open, on what may be a full disk. Recovery ignores a pending swap
            // whose file is absent.
            try? fileSystem.removeFile(cleanedPath)
            throw error
        }
        try fileSystem.syncDirectory(directory)
        try SegmentSwap.finish(
            swapPath: swapPath, range: run.baseOffset..<run.endOffset, directory: directory,
            fileSystem: fileSystem)
        try writeIndex(rewrite.index)
        sealed.replaceSubrange(start..<(start + run.segments.count), with: [rewrite.index])
        try writeManifest()
        #if LOGBOOK_VERIFY
            checkInvariants()
        #endif
    }
}

/// The renames that complete a swap, shared by `installRewrite` and recovery.
enum SegmentSwap {
    /// Retires every segment whose base offset lies in `range`, then moves the swap file to
    /// its final name and removes the retired files. Idempotent: a crash anywhere inside
    /// leaves names from which it can run again.
    static func finish(
        swapPath: String, range: Range<UInt64>, directory: String, fileSystem: any FileSystem
    ) throws(StorageError) {
        let names = try fileSystem.contentsOfDirectory(directory)
        for name in names {
            guard let base = SegmentFileName.baseOffset(ofSegment: name), range.contains(base)
            else { continue }
            try fileSystem.rename(
                directory + "/" + name, to: directory + "/" + name + SegmentFileName.deletedSuffix)
            let index = directory + "/" + SegmentFileName.index(baseOffset: base)
            if fileSystem.exists(index) {
                try fileSystem.rename(index, to: index + SegmentFileName.deletedSuffix)
            }
        }
        try fileSystem.syncDirectory(directory)
        try fileSystem.rename(
            swapPath, to: directory + "/" + SegmentFileName.segment(baseOffset: range.lowerBound))
        try fileSystem.syncDirectory(directory)
        try removeDeleted(directory: directory, fileSystem: fileSystem)
    }

    /// Removes `.deleted` files: their replacement is already in place.
    static func removeDeleted(directory: String, fileSystem: any FileSystem) throws(StorageError) {
        for name in try fileSystem.contentsOfDirectory(directory)
        where name.hasSuffix(SegmentFileName.deletedSuffix) {
            try fileSystem.removeFile(directory + "/" + name)
        }
    }

    /// Recovery: removes unfinished rewrites (`.cleaned`), finishes swaps that were made
    /// authoritative (`.swap`) once they check out (`reasonToSetAside`), sets aside those
    /// that do not, and removes leftovers (`.deleted`). Returns what it did.
    static func recover(
        directory: String, fileSystem: any FileSystem, manifest: SegmentManifest?,
        configuration: LogConfiguration
    ) throws(StorageError) -> [String] {
        var actions: [String] = []
        for name in try fileSystem.contentsOfDirectory(directory) {
            let path = directory + "/" + name
            if name.hasSuffix(SegmentFileName.cleanedSuffix) {
                try fileSystem.removeFile(path)
                actions.append("removed unfinished rewrite \(name)")
            } else if name.hasSuffix(SegmentFileName.swapSuffix),
                let range = SegmentFileName.rewriteRange(of: name)
            {
                if let reason = try reasonToSetAside(
                    path, range: range, manifest: manifest, fileSystem: fileSystem,
                    configuration: configuration)
                {
                    try setAside(
                        path, range: range, directory: directory, fileSystem: fileSystem)
                    actions.append("set aside \(name) as \(name + rejectedSuffix): \(reason)")
                    continue
                }
                try finish(
                    swapPath: path, range: range, directory: directory, fileSystem: fileSystem)
                actions.append("finished interrupted swap \(name)")
            }
        }
        if try fileSystem.contentsOfDirectory(directory).contains(where: {
            $0.hasSuffix(SegmentFileName.deletedSuffix)
        }) {
            try removeDeleted(directory: directory, fileSystem: fileSystem)
            actions.append("removed replaced segments")
        }
        if !actions.isEmpty { try fileSystem.syncDirectory(directory) }
        return actions
    }
}
