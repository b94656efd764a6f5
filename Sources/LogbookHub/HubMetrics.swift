import CoreMetrics

/// The hub's figures, through swift-metrics: a no-op until the program bootstraps a backend
/// (`logbook hub serve` exports them with swift-prometheus at `/metrics`). Made with each
/// store, so a backend bootstrapped before the store receives them.
struct HubMetrics: Sendable {
    /// Merge statements committed (each of one push, or of pushes that arrived together).
    let merges = Counter(label: "logbook_hub_merges_total")
    /// Changes received by merges, accepted or not.
    let pushedChanges = Counter(label: "logbook_hub_pushed_changes_total")
    /// Cells written and records deleted by merges.
    let acceptedChanges = Counter(label: "logbook_hub_accepted_changes_total")
    /// Changes sent in pages to readers.
    let pulledChanges = Counter(label: "logbook_hub_pulled_changes_total")
    /// Whole answers and large pages refused 503 after waiting for a slot.
    let refusedLargeAnswers = Counter(label: "logbook_hub_large_answers_refused_total")
    /// How long each merge took, lock wait and commit included.
    let mergeDuration = Timer(label: "logbook_hub_merge_seconds")
}
