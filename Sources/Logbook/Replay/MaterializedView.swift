import LogbookCRDT

/// A query structure maintained from the accepted changes of a Logbook, in log order.
///
/// Registered views are fed every change the replica accepts (local writes and accepted
/// remote changes) as it is logged, and, when the Logbook is opened, every change of the log
/// in the same pass that rebuilds the CRDT (each batch is decoded once for all of them).
///
/// The invariant every view must keep, and tests check: built from zero by replay, it has
/// the same `digest()` as when maintained incrementally. Views must also be functions of the
/// accepted *state*, not of how many changes led there: compaction drops superseded changes
/// and must leave every view's digest unchanged. An accepted change always carries the new
/// winner of its (record, column), so applying changes in log order and keeping the last
/// value per column is enough.
///
/// Isolation: the Logbook calls `apply` and `reset` under its lock, one change at a time,
/// inside the write that made the change (before it returns, before it is synced): `apply`
/// must not call the Logbook — any call of it takes the same lock and never returns — nor
/// block. Reads of the view from other threads must be synchronized by the view itself. Code
/// that reacts to changes by reading or writing the Logbook observes instead
/// (`Logbook.committedChanges()`): it runs after the commit, outside the lock. The one exception is a
/// replay on open, for views that declare `replaysIndependently`: those may be applied on a
/// thread of their own while the others are applied on another (each view still gets its
/// changes one at a time, in log order).
public protocol MaterializedView: AnyObject, Sendable {
    /// A stable name, unique among a Logbook's views.
    var name: String { get }
    /// Empties the view before a rebuild.
    func reset()
    /// Applies one accepted change, logged at `offset`.
    func apply(_ change: Change<String, String, Value>, at offset: UInt64)
    /// A stable hash of the view's state (equal states give equal digests).
    func digest() -> StateDigest
    /// Whether a replay may apply this view concurrently with the Logbook's other views:
    /// true only when it shares no mutable state with any of them. Default false.
    var replaysIndependently: Bool { get }
}

extension MaterializedView {
    /// Views share state unless they say otherwise: replayed with the others, one change
    /// at a time.
    public var replaysIndependently: Bool { false }
}
