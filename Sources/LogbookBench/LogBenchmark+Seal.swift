import Foundation
import LogbookStorage
import LogbookWorkloads

extension LogBenchmark {
    /// The name of the seal figure with write-back started early, or not.
    static func sealFigureName(startingWriteback: Bool) -> String {
        "seal of a \(SegmentFillWorkload.segmentBytes >> 20) MiB segment, "
            + (startingWriteback ? "write-back started every MiB" : "no early write-back")
    }

    /// `SegmentFillWorkload`'s segment filled through `Log.append`, then sealed, as the roll
    /// to the next segment seals it: its `fdatasync`, index, next file and manifest. Once
    /// with write-back started every MiB as the segment fills (the default,
    /// `LogConfiguration.writebackAfterBytes`), once with none, the two alternated run by run
    /// in a directory of their own. The rate is the segment's megabytes per second through
    /// the fill and the seal; the note gives the seal's median time, the wait one append
    /// takes at a roll.
    func sealFigures() throws -> [BenchFigure] {
        progress("a 64 MiB segment filled and sealed, with early write-back and without")
        let workload = SegmentFillWorkload()
        let path = directory + "/seal"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var fills: [Bool: [Double]] = [:]
        var seals: [Bool: [Double]] = [:]
        for run in 0..<runs {
            for startingWriteback in run % 2 == 0 ? [true, false] : [false, true] {
                let started = ContinuousClock.now
                let log = try workload.filledLog(in: path, startingWriteback: startingWriteback)
                let filled = ContinuousClock.now
                try log.sealActiveSegment()
                let sealed = ContinuousClock.now
                try log.close()
                fills[startingWriteback, default: []].append((filled - started).seconds)
                seals[startingWriteback, default: []].append((sealed - filled).seconds)
            }
        }
        return [true, false].map { startingWriteback in
            let fill = median(fills[startingWriteback] ?? [])
            let seal = median(seals[startingWriteback] ?? [])
            return BenchFigure(
                system: "Logbook", name: Self.sealFigureName(startingWriteback: startingWriteback),
                changesPerSecond: 0,
                diskMegabytesPerSecond: Double(SegmentFillWorkload.segmentBytes) / (fill + seal)
                    / 1e6,
                note: String(format: "the seal %.1f ms, the fill %.1f ms", seal * 1e3, fill * 1e3)
                    + " (medians); 4 KiB records of random bytes through Log.append")
        }
    }
}
