import Foundation
import Logbook
import LogbookStorage

/// A clock that only moves when told to, for tests of time-based behaviour (segment age).
///
/// Isolation: thread-safe.
public final class SimulatedClock: LogClock, @unchecked Sendable {
    // @unchecked: `now` is guarded by `lock`.
    private let lock = NSLock()
    private var now: UInt64

    /// A clock reading `startNanoseconds`.
    public init(startNanoseconds: UInt64 = 0) {
        now = startNanoseconds
    }

    /// The current simulated time.
    public func nowNanoseconds() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return now
    }

    /// Moves the clock forward.
    public func advance(nanoseconds: UInt64) {
        lock.lock()
        now += nanoseconds
        lock.unlock()
    }
}

extension SimulatedClock: WallClock {
    /// The simulated time as wall time: nanoseconds since 1970.
    public func secondsSince1970() -> Double { Double(nowNanoseconds()) / 1e9 }
}
