/// A Lamport clock: the replica's source of `dbVersion`s.
///
/// `tick()` numbers a local event; `update(_:)` folds in a version seen on a remote change
/// and always advances by one, so a merged change gets a local version strictly after both
/// the remote one and everything this replica did before. Pure value, no clock reads.
///
/// Two guards keep versions from outside harmless (docs/decisions/0003-version-bounds.md,
/// revised by 0014):
/// - `update(_:)` follows a received time fully up to `followFloor` (2^62), and past it at
///   most `followLead` (2^32) ahead of its own time. One hostile change with a huge
///   `dbVersion` therefore cannot push a replica's clock to the top and stop its writes:
///   past 2^62 each change moves it by at most 2^32 + 1. Convergence does not depend on
///   it: the merge rule compares the changes' own versions, never the receiver's clock, and
///   a later local write to a column still outranks it by `colVersion`. Legitimate clocks
///   never get near 2^62 (a billion events a second for 146 years), so below it the clock
///   is crdt-lite's exactly.
/// - The arithmetic saturates at `UInt64.max` instead of trapping.
///
/// `Logbook` refuses at its door, before the clock moves, a change from a client that this
/// clock would not follow fully (`followLimit(from:)`), and a write that would take it past
/// `ChangeLimits.versionMax` (2^63 − 1).
public struct LogicalClock: Codable, Hashable, Sendable {
    @usableFromInline var time: UInt64

    /// A clock at time 0; the first `tick()` returns 1.
    @inlinable public init() {
        time = 0
    }

    /// Advances the clock for a local event. Returns the new time.
    @inlinable @discardableResult
    public mutating func tick() -> UInt64 {
        time = Self.successor(of: time)
        return time
    }

    /// Received times up to this one are followed fully, whatever the clock's own time: 2^62.
    public static let followFloor: UInt64 = 1 << 62

    /// How far past `followFloor`, and past its own time, the clock follows: 2^32.
    public static let followLead: UInt64 = 1 << 32

    /// Sets the time to `max(time, followed(receivedTime, at: time)) + 1`. Returns the new
    /// time.
    @inlinable @discardableResult
    public mutating func update(_ receivedTime: UInt64) -> UInt64 {
        time = Self.successor(of: max(time, Self.followed(receivedTime, at: time)))
        return time
    }

    /// The highest received time a clock at `time` follows fully:
    /// `max(time, followFloor) + followLead`, saturating.
    @inlinable public static func followLimit(from time: UInt64) -> UInt64 {
        let (limit, overflow) = max(time, followFloor).addingReportingOverflow(followLead)
        return overflow ? .max : limit
    }

    /// The part of a received time a clock at `time` follows: at most `followLimit(from:)`.
    @inlinable public static func followed(_ receivedTime: UInt64, at time: UInt64) -> UInt64 {
        // Every merge and replay calls this: a time no limit can be below (every honest one)
        // is followed after one comparison.
        guard receivedTime > followFloor + followLead else { return receivedTime }
        return min(receivedTime, followLimit(from: time))
    }

    /// `time + 1`, or `UInt64.max` when that would overflow.
    @inlinable static func successor(of time: UInt64) -> UInt64 {
        time == .max ? .max : time + 1
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
