/// Pulling continuously, for `logbook serve`.
extension PeerPuller {
    /// Follows the peer (`follow`, long polls of `interval`) until the task is cancelled;
    /// after a failure waits twice as long as after the previous one (from 100 ms up to 5 s)
    /// and resumes from the durable cursor. `onReport` sees every pull and every failure.
    public func run(
        interval: Duration = .milliseconds(500),
        onReport: @Sendable (Result<Report, any Error>) -> Void = { _ in }
    ) async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await follow(wait: interval) { report in
                    onReport(.success(report))
                    backoff = .milliseconds(100)
                }
            } catch {
                if Task.isCancelled { return }
                onReport(.failure(error))
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
