import Foundation

/// Wall-clock time, for what is stamped or compared across restarts (ledger entries,
/// tombstone retention). Injected, so simulations decide what time it is; the engine reads
/// the system's time only through `SystemWallClock`.
public protocol WallClock: Sendable {
    /// Seconds since 1970-01-01 UTC.
    func secondsSince1970() -> Double
}

/// The system's wall clock.
public struct SystemWallClock: WallClock {
    /// The system's clock.
    public init() {}

    /// `Date()`, in seconds since 1970.
    public func secondsSince1970() -> Double { Date().timeIntervalSince1970 }
}
