/// Brings a log directory to a consistent state when it is opened.
///
/// Policy (after LevelDB's log reader and Kafka's LogLoader): sealed segments must be intact
/// batch by batch; their indexes are loaded when they match and rebuilt from batch headers
/// when not. The active (last) segment is read in full: a torn or invalid tail is cut off and
/// reported; an invalid batch with a valid batch anywhere after it is corruption, never
/// dropped, because it may hold acknowledged records.
enum SegmentRecovery {
    struct Outcome {
        var sealed: [SegmentIndex]
        var active: Log.ActiveSegment
        var report: RecoveryReport
        var chain: SegmentChain
        var history: LogHistory
    }

    /// With `readOnly`, nothing is changed: what would be repaired is reported or done in
    /// memory (see `Log.openReadOnly`). With `visibleEnd` (a reader beside a writer), the
    /// active segment's batches past that offset are left unread, as not yet durable.
    static func recover(
        directory: String, fileSystem: any FileSystem, configuration: LogConfiguration,
        clock: (any LogClock)?, readOnly: Bool = false, visibleEnd: UInt64? = nil
    ) throws(StorageError) -> Outcome {
        var report = RecoveryReport()
        report.isReadOnly = readOnly
        let manifest = try SegmentManifest.read(directory: directory, fileSystem: fileSystem)
        try manifest?.checkIdentity(expected: configuration.identity, directory: directory)
        let identity = manifest?.identity ?? configuration.identity ?? .random()
        let history = manifest?.history ?? .beginning(at: 0)
        if readOnly {
            try refuseUnfinishedSwap(directory: directory, fileSystem: fileSystem)
        } else {
            report.swapActions = try SegmentSwap.recover(
                directory: directory, fileSystem: fileSystem, manifest: manifest,
                configuration: configuration)
        }
        let names = try fileSystem.contentsOfDirectory(directory)
        for name in names where name.hasSuffix(SegmentFileName.temporarySuffix) && !readOnly {
            try fileSystem.removeFile(directory + "/" + name)
            report.removedTemporaryFiles.append(name)
        }
        let baseOffsets = names.compactMap(SegmentFileName.baseOffset(ofSegment:))
        guard baseOffsets.count <= Limits.segmentCountMax else {
            throw StorageError(
                .unsupported, "\(baseOffsets.count) segments exceed \(Limits.segmentCountMax)",
                path: directory)
        }
        let chain: SegmentChain
        if let recorded = manifest?.chain {
            chain = recorded
        } else {
            chain = try SegmentChain.inferred(
                identity: identity,
                identityIsKnown: manifest?.identity != nil || configuration.identity != nil,
                baseOffsets: baseOffsets
            ) { (base) throws(StorageError) in
                try firstPreviousCRC(base, directory: directory, fileSystem: fileSystem)
            }
        }
        let now = clock?.nowNanoseconds() ?? 0
        let checked = try manifest.map { manifest throws(StorageError) in
            let resolved = manifest.resolvingPendingSwap { base in
                baseOffsets.contains(base)
                    ? try? segmentSize(base, directory: directory, fileSystem: fileSystem) : nil
            }
            try resolved.check(
                presentBaseOffsets: baseOffsets,
                sizeOfSegment: { (base) throws(StorageError) in
                    try segmentSize(base, directory: directory, fileSystem: fileSystem)
                }, directory: directory)
            return resolved
        }
        guard let activeBase = baseOffsets.last else {
            if readOnly {
                throw StorageError(.notFound, "no segments: not a log", path: directory)
            }
            let path = directory + "/" + SegmentFileName.segment(baseOffset: 0)
            let file = try fileSystem.open(path, mode: .createNew)
            try fileSystem.syncDirectory(directory)
            let active = Log.ActiveSegment(
                file: file, index: SegmentIndex(baseOffset: 0),
                lastBatchCRC: chain.firstPreviousCRC(ofSegmentAt: 0), createdAtNanoseconds: now)
            try SegmentManifest(
                chain: chain, history: history, sealed: [], activeBaseOffset: 0
            ).write(directory: directory, fileSystem: fileSystem)
            return Outcome(
                sealed: [], active: active, report: report, chain: chain, history: history)
        }
        var sealed: [SegmentIndex] = []
        for base in baseOffsets.dropLast() {
            let index = try loadSealedIndex(
                base, directory: directory, fileSystem: fileSystem, chain: chain,
                configuration: configuration, readOnly: readOnly, report: &report)
            if let previous = sealed.last, index.baseOffset < previous.nextOffset {
                throw StorageError(
                    .corruption,
                    "segment starts at offset \(index.baseOffset), before the previous one ends at \(previous.nextOffset)",
                    path: directory + "/" + SegmentFileName.segment(baseOffset: base))
            }
            sealed.append(index)
        }
        try checked?.checkLastBatches(of: sealed, directory: directory)
        let active = try recoverActive(
            activeBase, directory: directory, fileSystem: fileSystem, chain: chain,
            configuration: configuration, createdAt: now, readOnly: readOnly,
            visibleEnd: visibleEnd, report: &report)
        if let previous = sealed.last, active.index.baseOffset < previous.nextOffset {
            throw StorageError(
                .corruption,
                "active segment starts at offset \(active.index.baseOffset), before the previous one ends at \(previous.nextOffset)",
                path: directory + "/" + SegmentFileName.segment(baseOffset: activeBase))
        }
        let current = SegmentManifest(
            chain: chain, history: history, sealed: sealed, activeBaseOffset: activeBase)
        if current != manifest && !readOnly {
            if checked == nil {
                report.manifestActions.append("created \(SegmentManifest.fileName)")
            } else if checked?.identity == nil {
                report.manifestActions.append(
                    "wrote \(SegmentManifest.fileName) in version 2 (the log's identity, its "
                        + "history and each sealed segment's last batch CRC)")
            } else if checked?.seeding == nil {
                report.manifestActions.append(
                    "recorded in \(SegmentManifest.fileName) that segments from offset "
                        + "\(chain.seededFrom) on chain from the log's seed")
            }
            try current.write(directory: directory, fileSystem: fileSystem)
        }
        return Outcome(
            sealed: sealed, active: active, report: report, chain: chain, history: history)
    }

    /// A read-only open cannot finish a swap, nor read the log consistently without it.
    private static func refuseUnfinishedSwap(directory: String, fileSystem: any FileSystem)
        throws(StorageError)
    {
        let swaps = try fileSystem.contentsOfDirectory(directory).filter {
            $0.hasSuffix(SegmentFileName.swapSuffix)
        }
        guard let swap = swaps.first else { return }
        throw StorageError(
            .readOnly,
            "an interrupted compaction swap (\(swap)) must be finished or set aside by a writer "
                + "first: open the log for writing once (any writing command)",
            path: directory)
    }

    /// `body` applied to the segment file starting at `base`, opened for reading.
    static func readingSegment<Result>(
        _ base: UInt64, directory: String, fileSystem: any FileSystem,
        _ body: (any StorageFile) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        let file = try fileSystem.open(
            directory + "/" + SegmentFileName.segment(baseOffset: base), mode: .read)
        defer { try? file.close() }  // read-only: nothing to lose
        return try body(file)
    }

    /// The size of the segment file starting at `base`.
    private static func segmentSize(
        _ base: UInt64, directory: String, fileSystem: any FileSystem
    ) throws(StorageError) -> Int64? {
        try readingSegment(base, directory: directory, fileSystem: fileSystem) {
            (file) throws(StorageError) in try file.size()
        }
    }

    /// Loads a sealed segment's index, or rebuilds it from the batches (and saves it).
    private static func loadSealedIndex(
        _ base: UInt64, directory: String, fileSystem: any FileSystem, chain: SegmentChain,
        configuration: LogConfiguration, readOnly: Bool,
        report: inout RecoveryReport
    ) throws(StorageError) -> SegmentIndex {
        let segmentPath = directory + "/" + SegmentFileName.segment(baseOffset: base)
        let indexPath = directory + "/" + SegmentFileName.index(baseOffset: base)
        let file = try fileSystem.open(segmentPath, mode: .read)
        defer { try? file.close() }  // read-only: a failed close loses nothing
        let size = try file.size()
        if fileSystem.exists(indexPath) {
            let indexFile = try fileSystem.open(indexPath, mode: .read)
            let bytes = try indexFile.read(
                at: 0,
                count: Int(truncatingIfNeeded: min(try indexFile.size(), 64 + 16 * (size / 64 + 1)))
            )
            try indexFile.close()
            if let index = SegmentIndex.decode(bytes, baseOffset: base, segmentSize: size),
                try endsInItsLastBatch(file, index: index)
            {
                return index
            }
        }
        // Rebuilding reads and checks every batch, not just the headers: a damaged header
        // must be blamed on this segment, not discovered later as an offset clash.
        let seed = chain.expectedFirstPreviousCRC(ofSegmentAt: base)
        let index = try scan(
            file, base: base, size: size, firstPreviousCRC: seed, configuration: configuration
        ) { (position, reason, header) throws(StorageError) in
            if position == 0, let seed, let header, header.previousBatchCRC != seed {
                throw StorageError(
                    .corruption, foreignFirstBatch(header, seed: seed), path: segmentPath,
                    byteOffset: 0, logOffset: header.baseOffset)
            }
            throw StorageError(.corruption, reason, path: segmentPath, byteOffset: position)
        }
        report.rebuiltIndexes.append(SegmentFileName.index(baseOffset: base))
        if readOnly { return index }  // kept in memory only
        let temporaryPath = indexPath + SegmentFileName.temporarySuffix
        let indexFile = try fileSystem.open(temporaryPath, mode: .createNew)
        try indexFile.write(index.encoded(), at: 0)
        try indexFile.close()
        try fileSystem.rename(temporaryPath, to: indexPath)
        return index
    }

    /// Whether the segment's last batch is the one its index names: its header, read from
    /// the segment, is valid, carries the CRC the index recorded, ends the file and ends at
    /// the index's next offset. One read of a header: an index kept beside a segment that
    /// was replaced (the same name and size, copied from elsewhere) does not vouch for it.
    private static func endsInItsLastBatch(_ file: any StorageFile, index: SegmentIndex)
        throws(StorageError) -> Bool
    {
        guard index.lastBatchPosition >= 0 else { return index.segmentSize == 0 }
        guard let header = try header(in: file, at: index.lastBatchPosition) else { return false }
        return header.batchCRC == index.lastBatchCRC
            && index.lastBatchPosition + Int64(header.totalSize) == index.segmentSize
            && header.nextOffset == index.nextOffset
    }

    /// Reads the whole active segment; cuts an invalid tail, or throws if valid data follows
    /// it. A tail of zeros is the end of the segment, kept and not reported.
    private static func recoverActive(
        _ base: UInt64, directory: String, fileSystem: any FileSystem, chain: SegmentChain,
        configuration: LogConfiguration,
        createdAt: UInt64, readOnly: Bool, visibleEnd: UInt64?, report: inout RecoveryReport
    ) throws(StorageError) -> Log.ActiveSegment {
        let path = directory + "/" + SegmentFileName.segment(baseOffset: base)
        let file = try fileSystem.open(path, mode: readOnly ? .read : .readWrite)
        let size = try file.size()
        let seed = chain.expectedFirstPreviousCRC(ofSegmentAt: base)
        var lastCRC = chain.firstPreviousCRC(ofSegmentAt: base)
        var torn: (position: Int64, reason: String, header: BatchHeader?)?
        let index = try scan(
            file, base: base, size: size, firstPreviousCRC: seed, configuration: configuration,
            visibleEnd: visibleEnd ?? .max
        ) {
            position, reason, header in
            torn = (position, reason, header)
        } onBatch: { header in
            lastCRC = header.batchCRC
        }
        if let visibleEnd, index.nextOffset >= visibleEnd {
            // Past what the writer made durable: its batches in flight, not a torn tail.
            torn = nil
        } else if let found = torn, try isAllZeros(file, from: found.position, to: size) {
            // Zeros written ahead of the last batch (`LogConfiguration.zeroFillAheadBytes`):
            // the segment's end, not a torn write. Kept, for the next batches to overwrite.
            torn = nil
        }
        if let torn {
            try refuseForeignFirstBatch(file, torn: torn, seed: seed, path: path)
            if let later = try firstValidBatch(in: file, after: torn.position, size: size) {
                throw StorageError(
                    .corruption,
                    "\(torn.reason); a valid batch follows at byte \(later), so this is not a torn tail",
                    path: path, byteOffset: torn.position, logOffset: torn.header?.baseOffset)
            }
            if !readOnly {
                try file.truncate(to: torn.position)
                try file.sync()
            }
            report.truncatedSegment = SegmentFileName.segment(baseOffset: base)
            report.truncatedAtByte = torn.position
            report.truncatedBytes = size - torn.position
            report.firstLostOffset = torn.header?.baseOffset
            report.reason = torn.reason
        }
        return Log.ActiveSegment(
            file: file, index: index, lastBatchCRC: lastCRC, createdAtNanoseconds: createdAt,
            fileEnd: torn == nil ? size : index.segmentSize)
    }

    /// Whether every byte of the file from `start` to `end` is zero; reads 1 MiB at a time.
    private static func isAllZeros(_ file: any StorageFile, from start: Int64, to end: Int64)
        throws(StorageError) -> Bool
    {
        var position = start
        while position < end {
            let chunk = try file.read(
                at: position, count: Int(truncatingIfNeeded: min(end - position, 1 << 20)))
            guard !chunk.isEmpty, chunk.allSatisfy({ $0 == 0 }) else { return false }
            position += Int64(chunk.count)
        }
        return true
    }

    /// Walks a segment's batches into an index. Calls `onInvalid` at the first invalid batch
    /// and stops there (it may throw to abort); stops before a batch that ends past
    /// `visibleEnd`, as at the segment's end.
    static func scan(
        _ file: any StorageFile, base: UInt64, size: Int64, firstPreviousCRC: UInt32?,
        configuration: LogConfiguration, visibleEnd: UInt64 = .max,
        onInvalid: (Int64, String, BatchHeader?) throws(StorageError) -> Void,
        onBatch: (BatchHeader) -> Void = { _ in }
    ) throws(StorageError) -> SegmentIndex {
        var index = SegmentIndex(baseOffset: base)
        let reader = SegmentReader(
            file: file, from: 0, to: size, previousBatchCRC: firstPreviousCRC)
        while true {
            switch try reader.next() {
            case .end:
                return index
            case .batch(let header, let position):
                guard header.baseOffset >= index.nextOffset else {
                    try onInvalid(
                        position, "batch offset \(header.baseOffset) is below \(index.nextOffset)",
                        header)
                    return index
                }
                if header.nextOffset > visibleEnd { return index }
                index.noteBatch(
                    header, at: position, intervalBytes: configuration.indexIntervalBytes)
                onBatch(header)
            case .invalid(let position, let reason, let header):
                try onInvalid(position, reason, header)
                return index
            }
        }
    }

    /// The position of the first fully valid batch that starts after `position`, if any.
    /// Reads the whole tail at once: it is at most one active segment, and only on recovery.
    private static func firstValidBatch(
        in file: any StorageFile, after position: Int64, size: Int64
    ) throws(StorageError) -> Int64? {
        guard let count = Int(exactly: size - position) else {
            throw StorageError(
                .corruption,
                "a tail of \(size - position) bytes does not fit this platform's memory",
                path: file.path, byteOffset: position)
        }
        let tail = try file.read(at: position, count: count)
        let magic = BatchHeader.skippableMagic
        return tail.withUnsafeBytes { bytes -> Int64? in
            var candidate = 1
            while candidate + BatchHeader.size <= bytes.count {
                defer { candidate += 1 }
                guard
                    bytes.loadUnaligned(fromByteOffset: candidate, as: UInt32.self).littleEndian
                        == magic,
                    case .success(let header) = BatchHeader.decode(
                        UnsafeRawBufferPointer(rebasing: bytes[candidate...])),
                    candidate + header.totalSize <= bytes.count
                else { continue }
                let payload = UnsafeRawBufferPointer(
                    rebasing: bytes[(candidate + BatchHeader.size)..<(candidate + header.totalSize)]
                )
                if header.computeCRC(payload: payload) == header.batchCRC {
                    return position + Int64(candidate)
                }
            }
            return nil
        }
    }
}
