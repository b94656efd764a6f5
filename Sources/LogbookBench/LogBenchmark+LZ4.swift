import Foundation
import LogbookStorage

extension LogBenchmark {
    /// The LZ4 codecs side by side on the standard workload's batches, as the log wrote
    /// them: every batch payload of the read figures' log compressed into a segment frame
    /// and decoded back, by liblz4 and by the project's own codec (`LZ4Blocks`, what Apple
    /// platforms use), alternated run by run. Rates are raw megabytes per second; the notes
    /// give the own codec's time against liblz4's and both outputs' sizes. A build without
    /// liblz4 (`LOGBOOK_LZ4=swift`) reports the own codec alone.
    func lz4Figures() throws -> [BenchFigure] {
        progress("LZ4: liblz4 and the own codec on the log's batches")
        let log = try Log.openReadOnly(directory: logDirectory)
        var payloads: [[UInt8]] = []
        let cursor = try log.makeCursor(from: log.startOffset)
        while try cursor.next() { payloads.append(cursor.rawPayload) }
        try log.close()
        let rawBytes = Double(payloads.reduce(0) { $0 + $1.count })
        let codecs = LZ4Blocks.usesOwnCodec ? [true] : [false, true]
        var compressing: [Bool: [Double]] = [:]
        var decoding: [Bool: [Double]] = [:]
        var stored: [Bool: Int] = [:]
        for run in 0..<runs {
            for ownCodec in run % 2 == 0 ? codecs : codecs.reversed() {
                var frames: [[UInt8]] = []
                frames.reserveCapacity(payloads.count)
                let started = ContinuousClock.now
                for payload in payloads {
                    var frame: [UInt8] = []
                    payload.withUnsafeBytes {
                        LZ4Frame.encode($0, into: &frame, ownCodec: ownCodec)
                    }
                    frames.append(frame)
                }
                let compressed = ContinuousClock.now
                var decoded = Array(repeating: [UInt8](), count: frames.count)
                var failures = 0
                for index in frames.indices {
                    decoded[index].reserveCapacity(payloads[index].count)
                    let failure = frames[index].withUnsafeBytes {
                        LZ4Frame.decode(
                            $0, rawLength: payloads[index].count, into: &decoded[index],
                            ownCodec: ownCodec)
                    }
                    if failure != nil { failures += 1 }
                }
                let done = ContinuousClock.now
                // Checked after the clock stopped: the comparison is not the codec's work.
                guard failures == 0, decoded == payloads else {
                    throw StorageError(
                        .corruption,
                        "the \(ownCodec ? "own" : "liblz4") codec did not decode its own "
                            + "frames back", path: logDirectory)
                }
                compressing[ownCodec, default: []].append((compressed - started).seconds)
                decoding[ownCodec, default: []].append((done - compressed).seconds)
                stored[ownCodec] = frames.reduce(0) { $0 + $1.count }
            }
        }
        return codecs.flatMap { ownCodec in
            [("compress", compressing), ("decompress", decoding)].map { step, times in
                let seconds = median(times[ownCodec] ?? [])
                let name = "LZ4 \(step), " + (ownCodec ? "own codec" : "liblz4")
                var note = "\(payloads.count) batches, \(stored[ownCodec] ?? 0) bytes stored"
                if ownCodec, let library = times[false] {
                    note += String(format: "; %.2f× liblz4's time", seconds / median(library))
                }
                return BenchFigure(
                    system: "Logbook", name: name, changesPerSecond: 0,
                    rawMegabytesPerSecond: rawBytes / seconds / 1e6, note: note)
            }
        }
    }
}
