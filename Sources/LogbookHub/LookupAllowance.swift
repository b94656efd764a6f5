/// A token bucket: up to `burst` lookups at once after a quiet spell, `perSecond` on
/// average. Not thread-safe; its owner calls it under its own lock.
struct LookupAllowance {
    let perSecond: Double
    let burst: Double
    private var available: Double
    private var refilled: ContinuousClock.Instant

    init(perSecond: Double, burst: Int, now: ContinuousClock.Instant = .now) {
        self.perSecond = max(perSecond, 0.001)
        self.burst = Double(max(burst, 1))
        available = self.burst
        refilled = now
    }

    /// Takes one lookup if one is available at `now`.
    mutating func take(at now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = max(0, (now - refilled) / .seconds(1))
        available = min(burst, available + elapsed * perSecond)
        refilled = max(refilled, now)
        guard available >= 1 else { return false }
        available -= 1
        return true
    }
}
