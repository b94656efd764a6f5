import CoreMetrics

/// The engine's figures, through swift-metrics: a no-op until the program bootstraps a
/// backend (`logbook serve` exports them with swift-prometheus at `/metrics`). Made when a
/// Logbook opens, so a backend bootstrapped before the open receives them.
struct EngineMetrics: Sendable {
    /// Changes appended to the log: local writes and what merges accepted.
    let appendedChanges = Counter(label: "logbook_appended_changes_total")
    /// Changes received through `merge` (from peers and clients), accepted or not.
    let receivedChanges = Counter(label: "logbook_received_changes_total")
    /// How long each compaction took (dry runs included).
    let compactionDuration = Timer(label: "logbook_compaction_seconds")
    /// How long each tombstone GC run took.
    let collectionDuration = Timer(label: "logbook_tombstone_gc_seconds")
    /// How long each replica snapshot took to write.
    let snapshotDuration = Timer(label: "logbook_snapshot_seconds")
    /// Background snapshots that failed (the next one is tried after as many bytes again).
    let snapshotFailures = Counter(label: "logbook_snapshot_failures_total")
    /// Seals of the active segment for maintenance that failed and left writes going (no
    /// room for an index, a segment or the manifest).
    let sealFailures = Counter(label: "logbook_seal_failures_total")
}
