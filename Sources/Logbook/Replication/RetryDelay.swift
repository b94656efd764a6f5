/// Waits between attempts after failures: each twice the last, from `min` up to `max`, and
/// each drawn at random from the upper half of its step (jitter), so that many clients that
/// failed together do not retry in step.
public struct RetryDelay: Sendable {
    /// The first step.
    public let min: Duration
    /// The largest step.
    public let max: Duration
    private var step: Duration

    /// Delays from `min` up to `max` (`min` when `max` is below it).
    public init(min: Duration, max: Duration) {
        self.min = min
        self.max = Swift.max(min, max)
        step = min
    }

    /// The wait before the next attempt, between half the current step and the step; the
    /// step then doubles, up to `max`.
    public mutating func next() -> Duration {
        let current = step
        step = Swift.min(step * 2, max)
        return current * Double.random(in: 0.5...1)
    }

    /// Back to `min`, after a success.
    public mutating func reset() { step = min }
}
