/// Migration 9: each stream's highest `dbVersion` or `colVersion` above 2^62, so the hub
/// can hold crdt-lite clients to the version door a node holds them to
/// (docs/decisions/0014-a-version-door-relative-to-the-clock.md).
///
/// A stream has no clock; `version_high` stands in for one. It is raised, before the merge,
/// by a push whose highest version is above `LogicalClock.followFloor` (2^62), and never
/// otherwise, so honest streams never write it. Raised before rather than with the merge:
/// a merge that then fails leaves it higher than the data by at most what the door had
/// admitted, never lower than what a client could have pulled.
extension HubSchema {
    static let streamVersionHigh = Migration(
        version: 9,
        statements: [
            "ALTER TABLE logbook_streams ADD COLUMN version_high bigint NOT NULL DEFAULT 0"
        ])
}
