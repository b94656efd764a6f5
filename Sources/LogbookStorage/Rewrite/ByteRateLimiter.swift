import Foundation

/// Holds a reader or writer to a byte rate: after each step it is told the bytes moved, and
/// it sleeps until the total since it started fits `bytesPerSecondMax` (nil: no limit).
/// Compaction and tombstone GC use one per pass, so `--throttle` bounds their whole I/O.
public struct ByteRateLimiter {
    private let bytesPerSecondMax: Int64?
    private let started = ContinuousClock.now
    private var bytes: Int64 = 0

    /// A limiter of `bytesPerSecondMax` (nil or not positive: no limit).
    public init(bytesPerSecondMax: Int64?) {
        self.bytesPerSecondMax = bytesPerSecondMax.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Whether it limits anything.
    public var isLimiting: Bool { bytesPerSecondMax != nil }

    /// Counts `count` more bytes and sleeps while they are ahead of the rate.
    public mutating func moved(_ count: Int) {
        guard let rate = bytesPerSecondMax else { return }
        bytes += Int64(count)
        let due = Double(bytes) / Double(rate)
        let elapsedSeconds = (ContinuousClock.now - started).seconds
        if due > elapsedSeconds { Thread.sleep(forTimeInterval: due - elapsedSeconds) }
    }
}
