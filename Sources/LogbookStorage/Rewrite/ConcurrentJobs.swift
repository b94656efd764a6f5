/// The caller's way of running several jobs at once: the storage layer starts no threads of
/// its own, so a caller that wants a rewrite to read segments in parallel hands one in.
public struct ConcurrentJobs: Sendable {
    /// How many jobs are worth running at once.
    public let width: Int
    /// Runs jobs `0..<count` (possibly at once) and returns when all have finished.
    public let run: @Sendable (_ count: Int, _ job: @Sendable (Int) -> Void) -> Void

    /// A runner of `width` jobs at a time.
    public init(
        width: Int, run: @escaping @Sendable (Int, @Sendable (Int) -> Void) -> Void
    ) {
        self.width = width
        self.run = run
    }
}
