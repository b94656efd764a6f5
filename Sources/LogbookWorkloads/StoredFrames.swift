import LogbookStorage

/// The LZ4 frames a log stores, lifted out of their batches: what the benchmarks' LZ4
/// ceiling decompresses, so it measures liblz4 alone on exactly Logbook's payloads.
public struct StoredFrames: Sendable {
    /// Each batch's stored frame and the length it decompresses to.
    public let frames: [(frame: [UInt8], rawLength: Int)]

    /// Uncompressed bytes in all frames.
    public var rawBytes: Int64 { frames.reduce(0) { $0 + Int64($1.rawLength) } }

    /// Reads every batch of the log in `directory` (checked as any read is).
    public init(logAt directory: String) throws(StorageError) {
        let log = try Log.open(directory: directory, createIfMissing: false)
        defer { try? log.close() }  // read-only use: nothing pending to lose
        let cursor = try log.makeCursor(from: 0)
        var frames: [(frame: [UInt8], rawLength: Int)] = []
        while try cursor.next() {
            guard let header = cursor.header else { continue }
            frames.append(
                (Array(try cursor.storedBytes().dropFirst(BatchHeader.size)), Int(header.rawLength))
            )
        }
        self.frames = frames
    }

    /// Decompresses every frame once into `output` (reused); returns the frames that failed.
    @discardableResult
    public func decompressAll(into output: inout [UInt8]) -> Int {
        var failures = 0
        for (frame, rawLength) in frames {
            output.removeAll(keepingCapacity: true)
            if frame.withUnsafeBytes({ LZ4Frame.decode($0, rawLength: rawLength, into: &output) })
                != nil
            {
                failures += 1
            }
        }
        return failures
    }
}
