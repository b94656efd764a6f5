/// The stretch of a long maintenance pass that is running, for a progress display.
public enum MaintenancePhase: String, Sendable {
    /// Reading every record's key: compaction's pass 1 (finding the winners), GC's search
    /// for the tombstoned records (`done`/`total` in log offsets).
    case readingKeys = "reading keys"
    /// Compaction's pass 2 and GC's rewrite: copying the kept records (`done`/`total` in
    /// stored bytes of the segments to rewrite).
    case rewriting
}

/// Called now and then during compaction and GC with the running phase and how far it is,
/// `done` of `total` (never more often than once per batch read, or per segment run
/// rewritten). It runs on the pass's own thread, so it should only note the figures.
public typealias MaintenanceProgress =
    @Sendable (MaintenancePhase, _ done: Int64, _ total: Int64)
    -> Void
