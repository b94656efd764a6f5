/// One local write, as `ReplicaState.write(_:flags:refusingColumnVersionsFrom:skipping:)` and
/// `Logbook.write(_:)` take them: the three local mutations of crdt-lite's API as values, so
/// many can be made in one call.
public enum LocalWrite: Sendable {
    /// `insertOrUpdate(recordId, fields:)`.
    case insertOrUpdate(String, fields: [(String, Value)])
    /// `deleteField(recordId, fieldName:)`.
    case deleteField(String, fieldName: String)
    /// `deleteRecord(recordId)`.
    case deleteRecord(String)

    /// The record the write is to.
    public var recordId: String {
        switch self {
        case .insertOrUpdate(let recordId, _), .deleteField(let recordId, _),
            .deleteRecord(let recordId):
            return recordId
        }
    }
}
