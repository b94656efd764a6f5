import CoreMetrics

/// The storage layer's figures, through swift-metrics: a no-op until the program bootstraps
/// a backend (`logbook serve` exports them with swift-prometheus). Made when a log or
/// committer is created, so a backend bootstrapped before the open receives them.
struct StorageMetrics: Sendable {
    /// How long each data sync of a segment takes.
    let syncDuration = Timer(label: "logbook_fsync_seconds")
    /// How many waiting appenders one group-commit sync releases.
    let groupCommitAppenders = Recorder(label: "logbook_group_commit_appenders")
}

extension Timer {
    /// Records the time from `start` to now.
    public func record(since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
