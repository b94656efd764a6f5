/// A Lamport clock: the replica's source of `dbVersion`s.
///
/// `tick()` numbers a local event; `update(_:)` folds in a version seen on a remote change
/// and always advances by one, so a merged change gets a local version strictly after both
/// the remote one and everything this replica did before. Pure value, no clock reads.
public struct LogicalClock: Codable, Hashable, Sendable {
    @usableFromInline var time: UInt64

    /// A clock at time 0; the first `tick()` returns 1.
    @inlinable public init() {
        time = 0
    }

    /// Advances the clock for a local event. Returns the new time.
    @inlinable @discardableResult
    public mutating func tick() -> UInt64 {
        time += 1
        return time
    }

    /// Sets the time to `max(time, receivedTime) + 1`. Returns the new time.
    @inlinable @discardableResult
    public mutating func update(_ receivedTime: UInt64) -> UInt64 {
        time = max(time, receivedTime) + 1
        return time
    }

    /// Sets the time outright, e.g. when a replica is rebuilt from stored changes.
    @inlinable public mutating func setTime(_ newTime: UInt64) {
        time = newTime
    }

    /// The current time: the last version handed out.
    @inlinable public func currentTime() -> UInt64 {
        time
    }
}
