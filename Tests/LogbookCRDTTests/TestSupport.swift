import LogbookCRDT

typealias TestCRDT = CRDT<String, String, Value>
typealias TestChange = Change<String, String, Value>

/// A change with the defaults tests rarely care about.
func change(
    _ recordId: String, _ column: String?, _ value: Value?, col: UInt64, db: UInt64,
    node: NodeId, local: UInt64 = 0, flags: UInt32 = 0
) -> TestChange {
    TestChange(
        recordId: recordId, colName: column, value: value, colVersion: col, dbVersion: db,
        nodeId: node, localDbVersion: local, flags: flags)
}

/// Everything two converged replicas must agree on: fields, column versions (without the
/// local stamp, which is per replica) and which records are tombstoned. Tombstone versions
/// may differ: with crdt-lite's rules the first deletion a replica accepts is the one it
/// keeps, so two concurrent deletions leave different (but equally final) tombstones.
struct ReplicaState: Equatable, CustomStringConvertible {
    var fields: [String: [String: Value]]
    var versions: [String: [String: [UInt64]]]
    var tombstones: Set<String>

    init(_ replica: TestCRDT) {
        fields = replica.getData().mapValues(\.fields)
        versions = replica.getData().mapValues { record in
            record.columnVersions.mapValues { [$0.colVersion, $0.dbVersion, $0.nodeId] }
        }
        tombstones = Set(replica.getTombstones().keys)
    }

    var description: String { "fields=\(fields) tombstones=\(tombstones.sorted())" }
}
