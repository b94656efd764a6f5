import CoreMetrics

/// One peer's replication figures, through swift-metrics (a no-op until the program
/// bootstraps a backend), with the peer's name as the `peer` dimension.
struct ReplicationMetrics: Sendable {
    /// Offsets of the peer's durable log this node has not merged yet, after each step.
    let lag: Gauge
    /// Changes received from the peer (batches and state pages), accepted or not.
    let received: Counter
    /// Steps that failed (the session retries).
    let errors: Counter
    /// Answers asked for again with a smaller body, because they would have decoded past
    /// the session's bounds (`FetchSizing`).
    let resizedFetches: Counter

    init(peer: String) {
        let dimensions = [("peer", peer)]
        lag = Gauge(label: "logbook_peer_lag_offsets", dimensions: dimensions)
        received = Counter(label: "logbook_peer_received_changes_total", dimensions: dimensions)
        errors = Counter(label: "logbook_peer_errors_total", dimensions: dimensions)
        resizedFetches = Counter(
            label: "logbook_peer_resized_fetches_total", dimensions: dimensions)
    }

    /// Records the lag a step left.
    func noteLag(_ report: ReplicationReport) {
        if report.peerDurableOffset > 0 {
            lag.record(
                report.peerDurableOffset > report.cursor
                    ? report.peerDurableOffset - report.cursor : 0)
        }
    }
}
