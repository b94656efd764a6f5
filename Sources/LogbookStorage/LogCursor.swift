/// Reads a log's batches from an offset, segment after segment, with bounded memory.
///
/// Made by `Log.makeCursor(from:)`, it sees the segments and the flushed end of the active
/// segment as they were when it was made. It uses its own read-only file handles, so it
/// can run on another thread while the log appends. Each batch is verified (CRC before
/// decompression, LZ4 frame, record framing, CRC chain, offset order) before its records are
/// handed out; damage throws `.corruption` naming the file, byte and offset.
public final class LogCursor {
    /// Part of one segment file to read.
    public struct SegmentSpan: Sendable {
        var baseOffset: UInt64
        var path: String
        var endPosition: Int64
        var startPosition: Int64
        /// What the segment's first batch chains from (`SegmentChain`); nil: not checked.
        var firstPreviousCRC: UInt32?
    }

    let fileSystem: any FileSystem
    private var spans: [SegmentSpan]
    @usableFromInline var reader: SegmentReader?
    private var currentFile: (any StorageFile)?
    private var currentPath = ""
    private var lastOffset: UInt64?
    /// Records below this offset are skipped.
    public let startOffset: UInt64
    /// The header of the batch `next()` returned most recently.
    public private(set) var header: BatchHeader?
    /// Where that batch sits: its segment file and byte position.
    public private(set) var location: (path: String, position: Int64) = ("", 0)

    /// Records below this are skipped: `startOffset`, or where reading resumed after a re-plan.
    @usableFromInline var floorOffset: UInt64
    /// Records at or after this offset are not read: the log's end when the cursor was made.
    public let endOffset: UInt64
    /// Re-derives the spans from an offset after a rewrite replaced segments the cursor had
    /// not opened yet (compaction); nil for cursors whose log cannot change under them.
    private let replan: ((UInt64) throws(StorageError) -> [SegmentSpan])?

    init(
        fileSystem: any FileSystem, spans: [SegmentSpan], startOffset: UInt64, endOffset: UInt64,
        replan: ((UInt64) throws(StorageError) -> [SegmentSpan])? = nil
    ) {
        self.fileSystem = fileSystem
        self.spans = spans
        self.startOffset = startOffset
        floorOffset = startOffset
        self.endOffset = endOffset
        self.replan = replan
    }

    deinit {
        try? currentFile?.close()  // read-only handle: nothing to lose
    }

    /// Advances to the next batch that holds records at or after `startOffset`; false at the
    /// end. Use `forEachRecord` or `storedBytes` on it.
    public func next() throws(StorageError) -> Bool {
        while true {
            if reader == nil {
                guard !spans.isEmpty else {
                    try closeCurrent()
                    return false
                }
                try openSpanReplanningIfCompacted(spans.removeFirst())
            }
            guard let reader else { continue }
            switch try reader.next() {
            case .end:
                self.reader = nil
                try closeCurrent()
            case .invalid(let position, let reason, let header):
                throw StorageError(
                    .corruption, reason, path: currentPath, byteOffset: position,
                    logOffset: header?.baseOffset)
            case .batch(let header, let position):
                if let lastOffset, header.baseOffset <= lastOffset {
                    throw StorageError(
                        .corruption,
                        "batch offset \(header.baseOffset) does not follow \(lastOffset)",
                        path: currentPath, byteOffset: position, logOffset: header.baseOffset)
                }
                lastOffset = header.nextOffset - 1
                if header.baseOffset >= endOffset {
                    self.reader = nil
                    spans.removeAll()
                    continue
                }
                if header.nextOffset <= floorOffset { continue }
                self.header = header
                location = (currentPath, position)
                return true
            }
        }
    }

    /// Calls `body(offset, record)` for each record of the current batch at or after
    /// `startOffset`. The buffer is valid only during the call.
    @inlinable
    public func forEachRecord<E: Error>(_ body: (UInt64, UnsafeRawBufferPointer) throws(E) -> Void)
        throws(E)
    {
        guard let header, let reader else { return }
        let start = floorOffset
        let end = endOffset
        var thrown: E?
        // The payload was verified when the batch was read, so framing cannot fail here.
        _ = reader.raw.withUnsafeBytes { payload in
            BatchDecoder.forEachRecord(payload) { delta, record in
                let offset = header.baseOffset + delta
                guard offset >= start else { return true }
                guard offset < end else { return false }
                do throws(E) { try body(offset, record) } catch {
                    thrown = error
                    return false
                }
                return true
            }
        }
        if let thrown { throw thrown }
    }

    /// The uncompressed payload of the current batch (records with their framing).
    public var rawPayload: [UInt8] { reader?.raw ?? [] }

    /// The stored bytes (header and LZ4 frame) of the current batch, exactly as on disk.
    public func storedBytes() throws(StorageError) -> [UInt8] {
        guard let header, let reader else { return [] }
        return try reader.withStoredBytes(at: location.position, length: header.totalSize) {
            Array($0)
        } ?? []
    }

    /// Opens a span; if its file is gone because a rewrite replaced it, asks for the spans
    /// from the next unread offset instead (offsets keep their numbers across rewrites).
    private func openSpanReplanningIfCompacted(_ span: SegmentSpan) throws(StorageError) {
        var attempt = span
        for _ in 0..<Limits.cursorReplanAttemptsMax {
            do {
                try openSpan(attempt)
                return
            } catch  where error.code == .notFound && replan != nil {
                guard let replan else { throw error }
                let resume = max(floorOffset, lastOffset.map { $0 + 1 } ?? startOffset)
                spans = try replan(resume)
                // The new spans may start at a batch already read in part: skip what is below.
                floorOffset = resume
                lastOffset = nil
                guard !spans.isEmpty else { return }
                attempt = spans.removeFirst()
            }
        }
        throw StorageError(.io, "segments kept changing while being read", path: span.path)
    }

    private func openSpan(_ span: SegmentSpan) throws(StorageError) {
        try closeCurrent()
        let file = try fileSystem.open(span.path, mode: .read)
        currentFile = file
        currentPath = span.path
        reader = SegmentReader(
            file: file, from: span.startPosition, to: span.endPosition,
            previousBatchCRC: span.startPosition == 0 ? span.firstPreviousCRC : nil)
    }

    private func closeCurrent() throws(StorageError) {
        if let file = currentFile {
            currentFile = nil
            try file.close()
        }
    }
}

extension Log {
    /// A cursor over the records from `offset` on, as of now. Writes the pending batch first
    /// so the cursor sees every append made before this call; if that write fails, the
    /// cursor ends at what was flushed before it (reads survive a full disk).
    ///
    /// Throws `.invalidArgument` for an offset below `startOffset` (that history is gone).
    public func makeCursor(
        from offset: UInt64,
        replan: ((UInt64) throws(StorageError) -> [LogCursor.SegmentSpan])? = nil
    ) throws(StorageError) -> LogCursor {
        guard offset >= startOffset else {
            throw StorageError(
                .invalidArgument, "offset \(offset) is below the log start \(startOffset)",
                path: directory)
        }
        do { try flush() } catch {
            // A failed write (ENOSPC, EIO) leaves the pending batch unwritten; the appender
            // that hit it was told and its owner stops writing. Reading must keep working:
            // the cursor ends at what was flushed before the failure.
        }
        return LogCursor(
            fileSystem: fileSystem, spans: spans(from: offset), startOffset: offset,
            endOffset: flushedOffset,
            replan: replan)
    }

    /// Where to read from `offset` on, as the segments are now.
    public func spans(from offset: UInt64) -> [LogCursor.SegmentSpan] {
        var spans: [LogCursor.SegmentSpan] = []
        for index in sealed + [active.index]
        where index.nextOffset > offset || index.baseOffset == active.index.baseOffset {
            let start = index.baseOffset <= offset ? index.startPosition(for: offset) : 0
            spans.append(
                LogCursor.SegmentSpan(
                    baseOffset: index.baseOffset, path: path(ofSegment: index.baseOffset),
                    endPosition: index.segmentSize, startPosition: start,
                    firstPreviousCRC: chain.expectedFirstPreviousCRC(ofSegmentAt: index.baseOffset))
            )
        }
        return spans
    }
}
