import LogbookCRDT

/// The changes one write, transaction or merge committed, as an observer receives them
/// (`Logbook.committedChanges()`): after they hold per the durability mode, outside the
/// engine's lock, in log order.
public struct CommittedChanges: Sendable {
    /// The accepted changes, with this replica's local versions, in the order they were
    /// logged. A merge's changes that lost to what the replica held are not here.
    public let changes: [Change<String, String, Value>]
    /// The log offsets their records took (with the clock record after them).
    public let offsets: Range<UInt64>

    /// The ids of the records the changes touched, each once, in first-touched order.
    public var recordIds: [String] {
        var seen = Set<String>()
        return changes.compactMap { seen.insert($0.recordId).inserted ? $0.recordId : nil }
    }

    /// True when a change touched a record whose id starts with `prefix` (a model type's
    /// `recordPrefix`, say).
    public func touches(prefix: String) -> Bool {
        changes.contains { $0.recordId.hasPrefix(prefix) }
    }
}
