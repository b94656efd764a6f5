import Foundation
import LogbookStorage

/// Per-call latencies, summarized as percentiles.
struct LatencyRecorder {
    private(set) var nanoseconds: [UInt64] = []

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.append(UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }

    mutating func merge(_ other: LatencyRecorder) { nanoseconds += other.nanoseconds }

    /// Makes room for `count` latencies, so recording never grows the list mid-run.
    mutating func reserve(_ count: Int) { nanoseconds.reserveCapacity(count) }

    /// How many latencies were recorded.
    var count: Int { nanoseconds.count }

    /// p50, p95, p99 and p99.9 in microseconds (nil when nothing was recorded).
    func percentiles() -> Latency? {
        guard !nanoseconds.isEmpty else { return nil }
        let sorted = nanoseconds.sorted()
        func at(_ fraction: Double) -> Double {
            Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
        }
        return Latency(p50: at(0.5), p95: at(0.95), p99: at(0.99), p999: at(0.999))
    }

    /// "p50 X ms, p99 Y ms" (or "nothing" when nothing was recorded), for notes.
    var summary: String {
        guard let latency = percentiles() else { return "nothing" }
        return String(format: "p50 %.1f ms, p99 %.1f ms", latency.p50 / 1000, latency.p99 / 1000)
    }
}

/// Latency percentiles in microseconds.
public struct Latency: Codable, Sendable {
    /// The median.
    public var p50: Double
    /// The 95th percentile.
    public var p95: Double
    /// The 99th percentile.
    public var p99: Double
    /// The 99.9th percentile.
    public var p999: Double
}

/// The process's peak resident memory, resettable on Linux so each figure gets its own peak.
enum PeakMemory {
    /// Resets the kernel's high-water mark (VmHWM) to the current size.
    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM in megabytes, or nil where /proc is unavailable.
    static func megabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }
}

/// How many data syncs per second this disk does for 4 KiB appends, through the log's own
/// `PosixFileSystem` (`fdatasync`; `F_FULLFSYNC` on Darwin): the ceiling of any durable
/// commit rate. With `zeroFillAhead`, zeros are kept written that far ahead of the appends,
/// written as the log writes them (more when fewer than half are left, synced by the next
/// sync), so each sync overwrites zeros instead of growing the file: the ceiling of a log
/// with `LogConfiguration.zeroFillAheadBytes`.
public func measureFdatasyncRate(
    directory: String, zeroFillAhead: Int = 0, seconds: Double = 1
) throws -> Double {
    let fileSystem = PosixFileSystem()
    try fileSystem.createDirectory(directory)
    let path = directory + "/fsync-probe"
    if fileSystem.exists(path) { try fileSystem.removeFile(path) }
    let file = try fileSystem.open(path, mode: .createNew)
    defer {
        try? file.close()
        try? fileSystem.removeFile(path)
    }
    let block = [UInt8](repeating: 0x5A, count: 4096)
    let zeros = [UInt8](repeating: 0, count: zeroFillAhead)
    var zeroFilledEnd: Int64 = 0
    let started = ContinuousClock.now
    var count = 0
    while (ContinuousClock.now - started).seconds < seconds {
        let end = Int64(count + 1) * 4096
        if zeroFillAhead > 0, zeroFilledEnd - end < Int64(zeroFillAhead / 2) {
            try file.write(zeros, at: max(end, zeroFilledEnd))
            zeroFilledEnd = max(end, zeroFilledEnd) + Int64(zeroFillAhead)
        }
        try file.write(block, at: Int64(count) * 4096)
        try file.sync()
        count += 1
    }
    return Double(count) / (ContinuousClock.now - started).seconds
}

/// The most a group commit with these settings can reach: every writer's call in every sync,
/// back to back at the disk's rate (each writer waits for the sync that covers its call, so
/// a writer has one call in each sync at most).
public func groupCommitBound(writers: Int, changesPerCall: Double, fdatasyncsPerSecond: Double)
    -> Double
{
    Double(writers) * changesPerCall * fdatasyncsPerSecond
}
