/// Where remote changes come from, which decides how far ahead of the clock their versions
/// may be (`ChangeLimits.clientVersionMax(clock:)`).
package enum RemoteChangeOrigin: Sendable {
    /// A crdt-lite client, `logbook append`, an importer or an app's own call of `merge`:
    /// a version the clock would not follow fully is refused, so that whoever follows what
    /// this replica serves can always write again.
    case client
    /// Another node's log or state, pulled from it or from a hub. Its versions passed that
    /// node's door; refusing them would stop replication for good, so they are merged and
    /// followed only as far as the clock follows (`LogicalClock.followed(_:at:)`).
    case peer
}
