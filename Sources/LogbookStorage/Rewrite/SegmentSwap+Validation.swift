extension SegmentSwap {
    /// Suffix a swap file gets when recovery refuses to apply it.
    static let rejectedSuffix = ".rejected"

    /// Why the swap file at `path`, named for `range`, must not be applied; nil when it is
    /// the rewrite the manifest recorded and every batch checks out.
    ///
    /// Applying a swap deletes the segments of its range, so a stray or damaged file (an
    /// empty `.seg.swap` copied in, a rewrite of another log) must never be applied: it has
    /// to be the recorded swap (range, size, last batch CRC, which the CRC chain ties to
    /// every byte before it), and every batch must be valid with offsets inside the range.
    /// Without a manifest (a log from before manifests) the file must at least be non-empty
    /// and valid.
    static func reasonToSetAside(
        _ path: String, range: Range<UInt64>, manifest: SegmentManifest?,
        fileSystem: any FileSystem,
        configuration: LogConfiguration
    ) throws(StorageError) -> String? {
        let recorded = manifest?.pendingSwap
        if manifest != nil {
            guard let recorded, recorded.range == range else {
                return "no swap of offsets \(range.lowerBound)..<\(range.upperBound) is recorded "
                    + "in \(SegmentManifest.fileName)"
            }
        }
        let file = try fileSystem.open(path, mode: .read)
        defer { try? file.close() }  // read-only: nothing to lose
        let size = try file.size()
        if let recorded, size != recorded.sizeBytes {
            return "it holds \(size) bytes, the recorded rewrite \(recorded.sizeBytes)"
        }
        if recorded == nil && size == 0 {
            return "it is empty, and without \(SegmentManifest.fileName) it cannot be checked"
        }
        var invalid: String?
        var lastCRC: UInt32 = 0
        // A swap in a log whose manifest does not say where seeding starts was written by
        // a build from before seeding: its chain starts at 0.
        let firstPreviousCRC: UInt32? =
            if let chain = manifest?.chain {
                chain.expectedFirstPreviousCRC(ofSegmentAt: range.lowerBound)
            } else {
                0
            }
        let index = try SegmentRecovery.scan(
            file, base: range.lowerBound, size: size, firstPreviousCRC: firstPreviousCRC,
            configuration: configuration
        ) { position, reason, _ in
            invalid = "byte \(position): \(reason)"
        } onBatch: { header in
            lastCRC = header.batchCRC
        }
        if let invalid { return invalid }
        if index.nextOffset > range.upperBound {
            return "it holds offsets up to \(index.nextOffset - 1), past its range's end"
        }
        if let recorded, lastCRC != recorded.lastBatchCRC {
            return "its last batch CRC differs from the recorded rewrite's"
        }
        return nil
    }

    /// Renames a refused swap file out of the way, keeping it for inspection, and puts back
    /// any segment of its range already retired (`.deleted`): without the swap, they are
    /// the log.
    static func setAside(
        _ path: String, range: Range<UInt64>, directory: String, fileSystem: any FileSystem
    ) throws(StorageError) {
        let target = path + rejectedSuffix
        if fileSystem.exists(target) { try fileSystem.removeFile(target) }
        try fileSystem.rename(path, to: target)
        for name in try fileSystem.contentsOfDirectory(directory)
        where name.hasSuffix(SegmentFileName.deletedSuffix) {
            let original = String(name.dropLast(SegmentFileName.deletedSuffix.count))
            let base =
                SegmentFileName.baseOffset(ofSegment: original)
                ?? SegmentFileName.baseOffset(ofIndex: original)
            guard let base, range.contains(base) else { continue }
            try fileSystem.rename(directory + "/" + name, to: directory + "/" + original)
        }
        try fileSystem.syncDirectory(directory)
    }
}
