import Logbook
import LogbookCRDT
import LogbookTesting

extension StandardWorkload.WorkloadValue {
    /// The engine value.
    var value: Value {
        switch self {
        case .int(let int): .int(int)
        case .string(let string): .string(string)
        }
    }
}

/// Applies standard-workload operations to a Logbook until `changeCount` changes were
/// accepted; returns the number of changes.
func runStandardWorkload(on logbook: Logbook, workload: inout StandardWorkload, changeCount: Int)
    async throws -> Int
{
    var changes = 0
    while changes < changeCount {
        switch workload.next() {
        case .upsert(let recordId, let fields):
            changes += try await logbook.insertOrUpdate(
                recordId, fields: fields.map { ($0.0, $0.1.value) }
            ).count
        case .deleteField(let recordId, let column):
            changes += try await logbook.deleteField(recordId, fieldName: column) == nil ? 0 : 1
        case .deleteRecord(let recordId):
            changes += try await logbook.deleteRecord(recordId) == nil ? 0 : 1
        }
    }
    return changes
}
