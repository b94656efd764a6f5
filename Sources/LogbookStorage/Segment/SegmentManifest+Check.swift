extension SegmentManifest {
    /// The manifest as the directory stands after recovery finished or dropped the recorded
    /// swap: when its run is gone but for the first segment, and that segment has the
    /// rewrite's size, the swap finished; otherwise it never started.
    func resolvingPendingSwap(sizeOfSegment: (UInt64) -> Int64?) -> SegmentManifest {
        guard let swap = pendingSwap else { return self }
        var resolved = self
        resolved.pendingSwap = nil
        let run = sealed.filter { swap.range.contains($0.baseOffset) }
        let finished =
            run.dropFirst().allSatisfy { sizeOfSegment($0.baseOffset) == nil }
            && sizeOfSegment(swap.range.lowerBound) == swap.sizeBytes
        guard finished, let start = sealed.firstIndex(where: { swap.range.contains($0.baseOffset) })
        else { return resolved }
        resolved.sealed.removeAll { swap.range.contains($0.baseOffset) }
        resolved.sealed.insert(
            Sealed(
                baseOffset: swap.range.lowerBound, sizeBytes: swap.sizeBytes,
                lastBatchCRC: swap.lastBatchCRC), at: start)
        return resolved
    }

    /// Checks the segment files present against the manifest: every listed sealed segment
    /// is there with its recorded size, the active one is there, and nothing unlisted sits
    /// among them (segments after the active one are rolls made since the last write).
    /// Throws `.corruption` naming the files and the offsets they held.
    func check(
        presentBaseOffsets: [UInt64], sizeOfSegment: (UInt64) throws(StorageError) -> Int64?,
        directory: String
    ) throws(StorageError) {
        let present = Set(presentBaseOffsets)
        let listed = Set(sealed.map(\.baseOffset))
        var problems: [String] = []
        for (position, segment) in sealed.enumerated() {
            let end =
                position + 1 < sealed.count ? sealed[position + 1].baseOffset : activeBaseOffset
            let name = SegmentFileName.segment(baseOffset: segment.baseOffset)
            let offsets = "offsets \(segment.baseOffset)..<\(end)"
            guard present.contains(segment.baseOffset),
                let size = try sizeOfSegment(segment.baseOffset)
            else {
                problems.append("\(name) (\(offsets)) is missing")
                continue
            }
            if size != segment.sizeBytes {
                problems.append(
                    "\(name) (\(offsets)) holds \(size) bytes, not the \(segment.sizeBytes) it "
                        + "was sealed with: it was cut, emptied or replaced")
            }
        }
        if !present.contains(activeBaseOffset) {
            problems.append(
                "\(SegmentFileName.segment(baseOffset: activeBaseOffset)) (offsets "
                    + "\(activeBaseOffset) on, the active segment) is missing")
        }
        for base in presentBaseOffsets where base < activeBaseOffset && !listed.contains(base) {
            problems.append(
                "\(SegmentFileName.segment(baseOffset: base)) is not one of the log's segments")
        }
        guard !problems.isEmpty else { return }
        throw StorageError(
            .corruption,
            "the segments disagree with \(Self.fileName): " + problems.joined(separator: "; ")
                + ". Opening would lose or misplace records. Restore the files from a copy; "
                + "or, to accept the loss, remove \(Self.fileName)",
            path: directory)
    }
}

extension SegmentManifest {
    /// Checks that every sealed segment, as recovery read it, ends in the batch the manifest
    /// recorded when it was sealed. The last batch's CRC covers the CRC before it, and so
    /// every batch of the segment: a segment of the same name and size copied from another
    /// log, or two segments of one size whose names were swapped, end in another batch.
    /// Throws `.corruption` naming each segment that does not belong. A version 1 manifest
    /// recorded no CRCs: nothing to compare.
    func checkLastBatches(of segments: [SegmentIndex], directory: String) throws(StorageError) {
        let recorded = Dictionary(
            sealed.map { ($0.baseOffset, $0.lastBatchCRC) }, uniquingKeysWith: { first, _ in first }
        )
        var problems: [String] = []
        for segment in segments {
            guard let expected = recorded[segment.baseOffset] ?? nil,
                expected != segment.lastBatchCRC
            else { continue }
            problems.append(
                "\(SegmentFileName.segment(baseOffset: segment.baseOffset)) ends in a batch with "
                    + "CRC 0x\(zeroPaddedHex(segment.lastBatchCRC)), but this log sealed it with "
                    + "0x\(zeroPaddedHex(expected))")
        }
        guard !problems.isEmpty else { return }
        throw StorageError(
            .corruption,
            problems.joined(separator: "; ")
                + ": it holds another segment's bytes (copied from another log, or renamed). "
                + "Put the log's own segment back; opening would read the wrong records",
            path: directory)
    }

    /// Refuses a manifest of another log than the one `expected` names.
    func checkIdentity(expected: LogIdentity?, directory: String) throws(StorageError) {
        guard let expected, let identity, identity != expected else { return }
        throw StorageError(
            .corruption,
            "\(Self.fileName) belongs to log \(identity.hex), not to this directory's log "
                + "\(expected.hex): the segments were copied in from another log",
            path: directory + "/" + Self.fileName)
    }
}
