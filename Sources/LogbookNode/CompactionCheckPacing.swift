/// When a serving node's next compaction check runs, and whether it needs to read the log.
///
/// A check learns the dirty ratio by reading the whole log (compaction's pass 1), so on a
/// large log a short `--compact-every` would keep a core busy reading: a check that found
/// nothing to do is not repeated until something was appended (nothing superseded can
/// appear without an append), and a check waits nine times as long as the last one took
/// before the next, so checks take at most a tenth of the node's time.
package struct CompactionCheckPacing {
    /// The schedule's interval.
    package let every: Duration
    /// The log's next offset read before the last check that finished: while it has not
    /// moved, the log holds no record that check did not weigh.
    private var checkedThrough: UInt64?

    package init(every: Duration) { self.every = every }

    /// Whether a check is worth its read: false while nothing was appended since the last.
    package func isNeeded(nextOffset: UInt64) -> Bool { checkedThrough != nextOffset }

    /// Notes a finished check (one that read the log, `nextOffset` read before it began)
    /// and returns when the next is due: the schedule's next tick, or later when the
    /// check was long.
    package mutating func checked(
        nextOffset: UInt64, due: ContinuousClock.Instant, took: Duration,
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
        checkedThrough = nextOffset
        return max(due + every, now + took * 9)
    }

    /// Forgets the last check (it failed), so the next reads the log again.
    package mutating func failed() { checkedThrough = nil }
}
