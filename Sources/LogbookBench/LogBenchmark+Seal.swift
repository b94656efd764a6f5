import Foundation
import LogbookStorage
import LogbookWorkloads

extension LogBenchmark {
    /// The segment size the seal figures fill: the log's default.
    static let sealedSegmentBytes = LogConfiguration().segmentSizeMax
    /// The records the seal figures append: incompressible, so the segment fills with
    /// few of them and LZ4 keeps their size.
    static let sealRecordBytes = 4096

    /// The name of the seal figure with write-back started early, or not.
    static func sealFigureName(startingWriteback: Bool) -> String {
        "seal of a 64 MiB segment, "
            + (startingWriteback ? "write-back started every MiB" : "no early write-back")
    }

    /// A segment of the default size filled through the storage layer with incompressible
    /// records (the bytes a `.buffered` appender leaves unsynced), then sealed, as the roll
    /// to the next segment seals it: its `fdatasync`, index, next file and manifest. Once
    /// with write-back started every MiB as the segment fills (the default,
    /// `LogConfiguration.writebackAfterBytes`), once with none, the two alternated run by run
    /// in a directory of their own. The rate is the segment's megabytes per second through
    /// the fill and the seal; the note gives the seal's median time, the wait one append
    /// takes at a roll.
    func sealFigures() throws -> [BenchFigure] {
        progress("a 64 MiB segment filled and sealed, with early write-back and without")
        let records = Self.incompressibleRecords()
        var fills: [Bool: [Double]] = [:]
        var seals: [Bool: [Double]] = [:]
        for run in 0..<runs {
            for startingWriteback in run % 2 == 0 ? [true, false] : [false, true] {
                let (fill, seal) = try fillAndSeal(records, startingWriteback: startingWriteback)
                fills[startingWriteback, default: []].append(fill)
                seals[startingWriteback, default: []].append(seal)
            }
        }
        return [true, false].map { startingWriteback in
            let fill = median(fills[startingWriteback] ?? [])
            let seal = median(seals[startingWriteback] ?? [])
            return BenchFigure(
                system: "Logbook", name: Self.sealFigureName(startingWriteback: startingWriteback),
                changesPerSecond: 0,
                diskMegabytesPerSecond: Double(Self.sealedSegmentBytes) / (fill + seal) / 1e6,
                note: String(format: "the seal %.1f ms, the fill %.1f ms", seal * 1e3, fill * 1e3)
                    + " (medians); 4 KiB records of random bytes through Log.append")
        }
    }

    /// Appends `records` in turn until the next would not fit a segment, flushes, then
    /// seals; returns the seconds of each step. The log's directory is removed after.
    private func fillAndSeal(_ records: [[UInt8]], startingWriteback: Bool) throws -> (
        fill: Double, seal: Double
    ) {
        let path = directory + "/seal"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = LogConfiguration()
        if !startingWriteback { configuration.writebackAfterBytes = 0 }
        let log = try Log.open(directory: path, configuration: configuration)
        // A record's batch header, framing and LZ4's expansion of random bytes stay well
        // under a tenth of it: the records leave room in the segment.
        let count = Self.sealedSegmentBytes / (Self.sealRecordBytes + Self.sealRecordBytes / 10)
        let started = ContinuousClock.now
        for number in 0..<count {
            try log.append(records[number % records.count], version: UInt64(number + 1))
        }
        try log.flush()
        let filled = ContinuousClock.now
        try log.sealActiveSegment()
        let sealed = ContinuousClock.now
        try log.close()
        return ((filled - started).seconds, (sealed - filled).seconds)
    }

    /// 1,024 records of seeded random bytes, 4 MiB in all: no record repeats within LZ4's
    /// 64 KiB window, so none compresses.
    private static func incompressibleRecords() -> [[UInt8]] {
        var random = SeededGenerator(seed: 7)
        return (0..<1024).map { _ in
            (0..<sealRecordBytes / 8).flatMap { _ in
                withUnsafeBytes(of: random.next()) { Array($0) }
            }
        }
    }
}
