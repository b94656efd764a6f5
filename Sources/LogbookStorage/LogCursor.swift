/// Reads a log's batches from an offset, segment after segment, with bounded memory.
///
/// Made by `Log.makeCursor(from:)`, it sees the segments and the flushed end of the active
/// segment as they were when it was made. It uses its own read-only file handles, so it
/// can run on another thread while the log appends. Each batch is verified (CRC before
/// decompression, LZ4 frame, record framing, CRC chain, offset order) before its records are
/// handed out; damage throws `.corruption` naming the file, byte and offset.
public final class LogCursor {
    struct SegmentSpan {
        var baseOffset: UInt64
        var path: String
        var endPosition: Int64
        var startPosition: Int64
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

    init(fileSystem: any FileSystem, spans: [SegmentSpan], startOffset: UInt64) {
        self.fileSystem = fileSystem
        self.spans = spans
        self.startOffset = startOffset
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
                try openSpan(spans.removeFirst())
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
                if header.nextOffset <= startOffset { continue }
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
        let start = startOffset
        var thrown: E?
        // The payload was verified when the batch was read, so framing cannot fail here.
        _ = reader.raw.withUnsafeBytes { payload in
            BatchDecoder.forEachRecord(payload) { delta, record in
                let offset = header.baseOffset + delta
                guard offset >= start else { return true }
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

    private func openSpan(_ span: SegmentSpan) throws(StorageError) {
        try closeCurrent()
        let file = try fileSystem.open(span.path, mode: .read)
        currentFile = file
        currentPath = span.path
        reader = SegmentReader(
            file: file, from: span.startPosition, to: span.endPosition,
            previousBatchCRC: span.startPosition == 0 ? 0 : nil)
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
    /// so the cursor sees every append made before this call.
    ///
    /// Throws `.invalidArgument` for an offset below `startOffset` (that history is gone).
    public func makeCursor(from offset: UInt64) throws(StorageError) -> LogCursor {
        guard offset >= startOffset else {
            throw StorageError(
                .invalidArgument, "offset \(offset) is below the log start \(startOffset)",
                path: directory)
        }
        try flush()
        var spans: [LogCursor.SegmentSpan] = []
        for index in sealed + [active.index]
        where index.nextOffset > offset || index.baseOffset == active.index.baseOffset {
            let start = index.baseOffset <= offset ? index.startPosition(for: offset) : 0
            spans.append(
                LogCursor.SegmentSpan(
                    baseOffset: index.baseOffset, path: path(ofSegment: index.baseOffset),
                    endPosition: index.segmentSize, startPosition: start))
        }
        return LogCursor(fileSystem: fileSystem, spans: spans, startOffset: offset)
    }
}
