import LogbookCRDT
import LogbookTesting
import Testing

// Model-based properties over seeded random histories: 2–5 replicas make concurrent inserts,
// field deletions and record deletions, and sync partially in random orders. After a full
// exchange they must hold the same state; re-merging must change nothing; merging the same
// changes in any order must give the same state; and each replica must be rebuildable from
// the changes it accepted. A failure names the seed that reproduces it.
@Suite struct ConvergencePropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    /// One replica and every change it created or accepted, in order.
    final class Node {
        let replica: TestCRDT
        var accepted: [TestChange] = []
        init(id: NodeId) { replica = TestCRDT(nodeId: id) }
    }

    private func randomValue(_ random: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: .int(Int64.random(in: -5...5, using: &random))
        case 1: .string(["a", "b", "c"].randomElement(using: &random) ?? "a")
        case 2: .bool(random.chance(0.5))
        default: .null
        }
    }

    private func randomStep(_ nodes: [Node], _ random: inout SeededGenerator) {
        let node = nodes[Int.random(in: 0..<nodes.count, using: &random)]
        let recordId = "r\(Int.random(in: 0..<6, using: &random))"
        let column = "c\(Int.random(in: 0..<4, using: &random))"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
            let fields = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                ("c\(Int.random(in: 0..<4, using: &random))", randomValue(&random))
            }
            node.accepted += node.replica.insertOrUpdate(recordId, fields: fields)
        case 55..<70:
            node.accepted += [node.replica.deleteField(recordId, fieldName: column)].compactMap {
                $0
            }
        case 70..<76:
            node.accepted += [node.replica.deleteRecord(recordId)].compactMap { $0 }
        default:
            partialSync(nodes, &random)
        }
    }

    /// Ships a random slice of one node's history, shuffled, to another node; or the
    /// state-based `getChangesSince` of a random version.
    private func partialSync(_ nodes: [Node], _ random: inout SeededGenerator) {
        let source = nodes[Int.random(in: 0..<nodes.count, using: &random)]
        let target = nodes[Int.random(in: 0..<nodes.count, using: &random)]
        guard source !== target else { return }
        let shipped = randomShipment(
            history: source.accepted, replica: source.replica, &random)
        target.accepted += target.replica.mergeChanges(shipped)
    }

    private func fullExchange(_ nodes: [Node]) {
        for _ in 0..<2 {
            for source in nodes {
                for target in nodes where target !== source {
                    target.accepted += target.replica.mergeChanges(
                        source.replica.getChangesSince(0))
                }
            }
        }
    }

    private func randomRun(seed: UInt64) -> (nodes: [Node], random: SeededGenerator) {
        var random = SeededGenerator(seed: seed)
        let nodes = (1...Int.random(in: 2...5, using: &random)).map { Node(id: NodeId($0)) }
        for _ in 0..<Int.random(in: 20...200, using: &random) {
            randomStep(nodes, &random)
        }
        return (nodes, random)
    }

    @Test(arguments: seeds)
    func replicasConvergeAfterFullExchange(seed: UInt64) {
        let (nodes, _) = randomRun(seed: seed)
        fullExchange(nodes)
        let first = ReplicaSummary(nodes[0].replica)
        for node in nodes.dropFirst() {
            #expect(ReplicaSummary(node.replica) == first, "seed=\(seed)")
        }
        for node in nodes { node.replica.checkInvariants() }
    }

    @Test(arguments: seeds)
    func remergingEverythingChangesNothing(seed: UInt64) {
        let (nodes, _) = randomRun(seed: seed)
        fullExchange(nodes)
        for target in nodes {
            let before = ReplicaSummary(target.replica)
            for source in nodes {
                #expect(target.replica.mergeChanges(source.accepted).isEmpty, "seed=\(seed)")
                #expect(
                    target.replica.mergeChanges(source.replica.getChangesSince(0)).isEmpty,
                    "seed=\(seed)")
            }
            #expect(ReplicaSummary(target.replica) == before, "seed=\(seed)")
        }
    }

    @Test(arguments: seeds)
    func mergeOrderDoesNotChangeTheFinalState(seed: UInt64) {
        var (nodes, random) = randomRun(seed: seed)
        // Every change any replica originated, as a set of operations to deliver.
        let originated = nodes.flatMap { node in
            node.accepted.filter { $0.nodeId == node.replica.getNodeId() }
        }
        var states: [ReplicaSummary] = []
        for attempt in 0..<3 {
            var order = originated
            if attempt > 0 { order.shuffle(using: &random) }
            let fresh = TestCRDT(nodeId: 100)
            fresh.mergeChanges(order)
            states.append(ReplicaSummary(fresh))
        }
        #expect(states[1] == states[0], "seed=\(seed)")
        #expect(states[2] == states[0], "seed=\(seed)")
        fullExchange(nodes)
        #expect(ReplicaSummary(nodes[0].replica) == states[0], "seed=\(seed)")
    }

    @Test(arguments: seeds)
    func replicaRebuiltFromItsAcceptedChangesIsIdentical(seed: UInt64) {
        let (nodes, _) = randomRun(seed: seed)
        for node in nodes {
            let rebuilt = TestCRDT(nodeId: node.replica.getNodeId(), changes: node.accepted)
            #expect(ReplicaSummary(rebuilt) == ReplicaSummary(node.replica), "seed=\(seed)")
            #expect(rebuilt.getChangesSince(0) == node.replica.getChangesSince(0), "seed=\(seed)")
        }
    }
}
