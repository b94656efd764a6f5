/// A log end seen at a moment: every record (or hub version) below `logEnd` existed at
/// `time`. GC measures its retention time from these, never from a record's own content; the
/// first GC run after a deletion starts its clock. A node keeps them in `tombstone-gc.json`,
/// a hub in its stream's row.
public struct RetentionSighting: Codable, Equatable, Sendable {
    /// Seconds since 1970.
    public var time: Double
    /// The log's next offset then (for a hub: its stream version + 1).
    public var logEnd: UInt64

    /// A sighting.
    public init(time: Double, logEnd: UInt64) {
        self.time = time
        self.logEnd = logEnd
    }
}

extension [RetentionSighting] {
    /// The largest log end seen at least `retention` seconds before `now` (0 when none):
    /// what lies below it is old enough to collect.
    public func retainedBelow(now: Double, retention: Double) -> UInt64 {
        filter { now - $0.time >= retention }.map(\.logEnd).max() ?? 0
    }

    /// Adds a sighting and forgets the ones a newer old-enough sighting makes useless; keeps
    /// at most 64 (the oldest, closest to old enough, and the newest).
    public mutating func note(_ sighting: RetentionSighting, retention: Double) {
        append(sighting)
        let old = filter { sighting.time - $0.time >= retention }
        if let newestOld = old.max(by: { $0.logEnd < $1.logEnd }) {
            removeAll { $0.logEnd < newestOld.logEnd && $0.time <= newestOld.time }
        }
        if count > 64 { remove(at: count - 2) }
    }
}
