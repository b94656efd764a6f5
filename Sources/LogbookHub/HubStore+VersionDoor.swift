import Logbook
import LogbookCRDT
import Logging
import PostgresNIO

/// The version door of a stream (migration 9, `HubSchema.streamVersionHigh`): a crdt-lite
/// client follows every `dbVersion` it pulls from the hub, so a push from a client is held
/// to `ChangeLimits.clientVersionMax(clock:)` of the stream's highest version, as a node
/// holds its clients to it of its clock. Pushes of nodes' shipped batches are not held to
/// it (their nodes' doors were) but raise the stream's highest version all the same.
extension HubStore {
    /// Refuses a client's push holding a version past the stream's door
    /// (`.invalidChange`, nothing merged), and raises the stream's `version_high` to the
    /// push's highest version when that is above 2^62. Pushes within 2^62 (every honest
    /// one) cost nothing here: no query is made.
    func admitVersions(
        _ changes: [Change<String, String, Value>], into stream: HubStream,
        from origin: RemoteChangeOrigin
    ) async throws {
        let highest = Self.highestVersion(of: changes)
        guard highest > LogicalClock.followFloor else { return }
        if origin == .client && highest > ChangeLimits.clientVersionMax(clock: 0) {
            let door = ChangeLimits.clientVersionMax(clock: try await versionHigh(of: stream))
            if let (index, name, value) = ChangeAdmission.firstPastClientLimit(
                changes, limit: door)
            {
                throw HubError.invalidChange(
                    index: index,
                    reason: "\(name) \(value) is past \(door), the highest version stream "
                        + "\(ChangeAdmission.quoted(stream.name)) takes from a client (2^62, "
                        + "or 2^32 past its highest; ChangeLimits.clientVersionMax): a client "
                        + "that followed it could run out of versions")
            }
        }
        try await client.query(
            """
            UPDATE logbook_streams SET version_high = greatest(version_high, \
            \(HubColumns.version(highest))) WHERE stream_id = \(stream.id)
            """, logger: logger)
    }

    /// The stream's highest version above 2^62 merged so far, 0 for none.
    func versionHigh(of stream: HubStream) async throws -> UInt64 {
        let rows = try await client.query(
            "SELECT version_high FROM logbook_streams WHERE stream_id = \(stream.id)",
            logger: logger)
        for try await high in rows.decode(Int64.self) { return HubColumns.version(stored: high) }
        throw HubError.unknownStream(stream.name)
    }

    /// The highest `dbVersion`, and `colVersion` of a column change, in `changes`.
    static func highestVersion(of changes: [Change<String, String, Value>]) -> UInt64 {
        var highest: UInt64 = 0
        for index in changes.indices {
            let change = changes[index]
            highest = max(highest, change.dbVersion)
            if change.colName != nil { highest = max(highest, change.colVersion) }
        }
        return highest
    }
}
