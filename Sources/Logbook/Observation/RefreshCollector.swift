import LogbookCRDT

/// Collects the changes a read-only Logbook's refresh applies, so that its observers hear
/// of the writer's commits as a writer's own observers do. Registered only for the replay
/// of one refresh, and only when someone observes.
final class RefreshCollector: MaterializedView, @unchecked Sendable {
    // @unchecked: filled by the replay under the engine's lock, read after it returns.
    let name = "refresh collector"
    private(set) var changes: [Change<String, String, Value>] = []

    func reset() { changes = [] }

    func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        changes.append(change)
    }

    func digest() -> StateDigest { StateDigestBuilder().finalize() }
}
