import LogbookCRDT
import LogbookHub
import LogbookTesting
import Testing

// The hub against an in-memory CRDT: seeded nodes write (updates, field and record
// deletions), push what they wrote to the hub and pull what others wrote, in random order;
// every push is merged into a reference CRDT in the same order. The hub's rows must be the
// reference's state, change for change, and every node must end with the reference's state.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubDifferentialTests {
    typealias StringChange = Change<String, String, Value>

    /// A change without its local version and flags: what the hub and the reference share.
    struct Cell: Hashable {
        var recordId: String
        var colName: String?
        var value: Value?
        var colVersion: UInt64
        var dbVersion: UInt64
        var nodeId: UInt64

        init(_ change: StringChange) {
            recordId = change.recordId
            colName = change.colName
            value = change.value
            colVersion = change.colVersion
            dbVersion = change.dbVersion
            nodeId = change.nodeId
        }
    }

    struct SimulatedNode {
        let replica: CRDT<String, String, Value>
        var outbox: [StringChange] = []
        var cursor: UInt64 = 0
    }

    @Test(arguments: [(seed: UInt64(1), nodes: 5), (2, 12), (3, 50)])
    func theHubHoldsWhatMergingEveryPushInOrderHolds(seed: UInt64, nodes nodeCount: Int)
        async throws
    {
        try await HubTestDatabase.withStore { store in
            let stream = try await store.stream(
                named: HubTestDatabase.freshStream("differential\(seed)"), create: true)
            var random = SeededGenerator(seed: seed)
            let reference = CRDT<String, String, Value>(nodeId: UInt64.max)
            var nodes = (0..<nodeCount).map {
                SimulatedNode(replica: CRDT(nodeId: UInt64($0 + 1) &* 0x9E37_79B9_7F4A_7C15))
            }
            for _ in 0..<12 {
                for index in (0..<nodeCount).shuffled(using: &random) {
                    Self.write(into: &nodes[index], using: &random)
                    if random.chance(0.5) {
                        let count = Int.random(in: 0...nodes[index].outbox.count, using: &random)
                        let chunk = Array(nodes[index].outbox.prefix(count))
                        nodes[index].outbox.removeFirst(count)
                        _ = try await store.merge(chunk, into: stream)
                        reference.mergeChanges(chunk)
                    }
                    if random.chance(0.5) {
                        try await Self.pull(into: &nodes[index], from: store, stream, limit: 17)
                    }
                }
            }
            for index in nodes.indices {
                _ = try await store.merge(nodes[index].outbox, into: stream)
                reference.mergeChanges(nodes[index].outbox)
                nodes[index].outbox = []
            }
            var fresh = SimulatedNode(replica: CRDT(nodeId: 1))
            try await Self.pull(into: &fresh, from: store, stream, limit: 1000)
            var held: [StringChange] = []
            var since: UInt64 = 0
            repeat {
                let page = try await store.changes(in: stream, since: since, limit: 500)
                held += page.changes
                since = page.nextSince
                if page.isComplete { break }
            } while true
            let expected = Set(reference.getChangesSince(0).map(Cell.init))
            #expect(held.count == expected.count, "a (record, column) appears twice")
            #expect(Set(held.map(Cell.init)) == expected, "seed \(seed)")
            #expect(!reference.getTombstones().isEmpty && !reference.getData().isEmpty)
            for index in nodes.indices {
                try await Self.pull(into: &nodes[index], from: store, stream, limit: 100)
            }
            for node in nodes + [fresh] {
                #expect(
                    node.replica.getData().mapValues(\.fields)
                        == reference.getData().mapValues(\.fields))
                #expect(
                    Set(node.replica.getTombstones().keys) == Set(reference.getTombstones().keys))
            }
        }
    }

    /// A few operations of the mix: mostly updates of 1–3 of five columns over 40 records,
    /// some field deletions, a few record deletions (after which writes to the id are refused).
    static func write(into node: inout SimulatedNode, using random: inout SeededGenerator) {
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let record = "record-\(Int.random(in: 0..<40, using: &random))"
            let roll = Double.random(in: 0..<1, using: &random)
            if roll < 0.04 {
                if let change = node.replica.deleteRecord(record) { node.outbox.append(change) }
            } else if roll < 0.15 {
                let column = "c\(Int.random(in: 0..<5, using: &random))"
                if let change = node.replica.deleteField(record, fieldName: column) {
                    node.outbox.append(change)
                }
            } else {
                let fields: [(String, Value)] = (0..<Int.random(in: 1...3, using: &random)).map {
                    _ in
                    let column = "c\(Int.random(in: 0..<5, using: &random))"
                    let value: Value =
                        random.chance(0.5)
                        ? .int(Int64.random(in: -1000...1000, using: &random))
                        : .string("v\(Int.random(in: 0..<100, using: &random))")
                    return (column, value)
                }
                node.outbox += node.replica.insertOrUpdate(record, fields: fields)
            }
        }
    }

    static func pull(
        into node: inout SimulatedNode, from store: HubStore, _ stream: HubStream, limit: Int
    ) async throws {
        while true {
            let page = try await store.changes(in: stream, since: node.cursor, limit: limit)
            node.replica.mergeChanges(page.changes)
            node.cursor = page.nextSince
            if page.isComplete { return }
        }
    }
}
