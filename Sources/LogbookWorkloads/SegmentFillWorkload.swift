import Foundation
import LogbookStorage

/// A segment of the log's default size filled with incompressible records, unsealed: what a
/// `.buffered` appender leaves unsynced when its segment is about to roll. The seal figures
/// of `logbook bench log` and `Benchmarks/` time its seal, with write-back started as the
/// segment filled (`LogConfiguration.writebackAfterBytes`) and without.
public struct SegmentFillWorkload: Sendable {
    /// The segment size filled: the log's default.
    public static let segmentBytes = LogConfiguration().segmentSizeMax
    /// Each record's size.
    public static let recordBytes = 4096

    /// 1,024 records of seeded random bytes, 4 MiB in all: no record repeats within LZ4's
    /// 64 KiB window, so none compresses.
    let records: [[UInt8]]

    /// The records, made once.
    public init() {
        var random = SeededGenerator(seed: 7)
        records = (0..<1024).map { _ in
            (0..<Self.recordBytes / 8).flatMap { _ in
                withUnsafeBytes(of: random.next()) { Array($0) }
            }
        }
    }

    /// How many records one segment takes: a record's batch header, framing and LZ4's
    /// expansion of random bytes stay well under a tenth of it, so they all fit.
    public static let recordCount = Int(segmentBytes) / (recordBytes + recordBytes / 10)

    /// A new log in `directory` (whatever was there removed) holding `recordCount` records
    /// in its one segment, flushed, not synced, still open: the caller seals and closes it.
    public func filledLog(in directory: String, startingWriteback: Bool) throws -> Log {
        try? FileManager.default.removeItem(atPath: directory)
        var configuration = LogConfiguration()
        if !startingWriteback { configuration.writebackAfterBytes = 0 }
        let log = try Log.open(directory: directory, configuration: configuration)
        for number in 0..<Self.recordCount {
            try log.append(records[number % records.count], version: UInt64(number + 1))
        }
        try log.flush()
        return log
    }
}
