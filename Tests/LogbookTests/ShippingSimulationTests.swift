import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Many nodes pulling each other's stored batches through a seeded network that partitions
// them and cuts transfers short: cut bodies are refused whole and leave the cursor where it
// was, and once the network heals every node ends with the same state digest.
@Suite struct ShippingSimulationTests {
    @Test(arguments: [31, 32, 33, 34] as [UInt64])
    func nodesConvergeThroughPartitionsAndCutTransfers(seed: UInt64) async throws {
        let count = 5
        var network = SimulatedNetwork(nodes: count, seed: seed, dropProbability: 0.15)
        let directories = (0..<count).map { _ in TemporaryDirectory() }
        defer { for directory in directories { directory.remove() } }
        let nodes = try directories.enumerated().map { index, directory in
            try Logbook.open(
                directory: directory.path, nodeId: NodeId(index + 1),
                options: smallLogOptions(.buffered))
        }
        // cursors[receiver][sender]: where the next pull from that sender starts.
        var cursors = Array(repeating: Array(repeating: UInt64(0), count: count), count: count)
        var refused = 0

        func pull(_ receiver: Int, from sender: Int, cut: Bool) async throws {
            let offset = cursors[receiver][sender]
            let shipped = try nodes[sender].storedBatches(
                from: offset, maxBytes: network.pick(256..<8192))
            guard shipped.batchCount > 0 else { return }
            let arrived = cut ? network.deliver(shipped.bytes) : shipped.bytes
            do {
                let (changes, next) = try ShippedBatchReader.changes(in: arrived, from: offset)
                _ = try await nodes[receiver].merge(changes)
                try nodes[receiver].sync()
                cursors[receiver][sender] = next
            } catch is ShippingFormatError {
                #expect(
                    arrived.count < shipped.bytes.count, "seed \(seed): a whole body was refused")
                refused += 1
            }
        }

        for step in 0..<400 {
            if step % 100 == 20 { network.partition() }
            if step % 100 == 70 { network.heal() }
            let node = network.pick(0..<count)
            if network.chance(0.4) {
                let record = "entity/e\(network.pick(0..<25))"
                if network.chance(0.05) {
                    _ = try await nodes[node].deleteRecord(record)
                } else {
                    _ = try await nodes[node].insertOrUpdate(
                        record,
                        fields: [("name", .string("n\(node)-\(step)")), ("v", .int(Int64(step)))])
                }
                try nodes[node].sync()
            } else {
                let sender = network.pick(0..<count)
                if sender != node && network.canReach(node, sender) {
                    try await pull(node, from: sender, cut: true)
                }
            }
        }
        network.heal()
        // Quiesce: rounds of everyone pulling everyone, uncut, until nothing moves.
        for _ in 0..<count + 2 {
            for receiver in 0..<count {
                for sender in 0..<count where sender != receiver {
                    var before: UInt64
                    repeat {
                        before = cursors[receiver][sender]
                        try await pull(receiver, from: sender, cut: false)
                    } while cursors[receiver][sender] != before
                }
            }
        }
        let digests = Set(nodes.map { $0.stateDigest() })
        #expect(digests.count == 1, "seed \(seed): \(digests.count) different states")
        #expect(refused > 0, "seed \(seed): no transfer was cut, the check proved nothing")
        for node in nodes { try node.close() }
    }
}
