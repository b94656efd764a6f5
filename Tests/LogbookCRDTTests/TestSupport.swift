import LogbookCRDT
import LogbookTesting

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
struct ReplicaSummary: Equatable, CustomStringConvertible {
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

/// What a random partial sync ships from a replica: a shuffled slice of its accepted
/// history, or the state-based `getChangesSince` of a random version.
func randomShipment(
    history: [TestChange], replica: TestCRDT, _ random: inout SeededGenerator
) -> [TestChange] {
    if random.chance(0.5), !history.isEmpty {
        let start = Int.random(in: 0..<history.count, using: &random)
        let end = Int.random(in: start...history.count, using: &random)
        var shipped = Array(history[start..<end])
        shipped.shuffle(using: &random)
        return shipped
    }
    let since = UInt64.random(in: 0...replica.getClock().currentTime(), using: &random)
    return replica.getChangesSince(since)
}
