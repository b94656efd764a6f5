import Logbook
import LogbookCRDT
import LogbookWorkloads

/// Applies standard-workload operations to a Logbook until `changeCount` changes were
/// accepted; returns the number of changes.
func runStandardWorkload(on logbook: Logbook, workload: inout StandardWorkload, changeCount: Int)
    async throws -> Int
{
    var changes = 0
    while changes < changeCount {
        changes += try await workload.next().apply(to: logbook)
    }
    return changes
}
