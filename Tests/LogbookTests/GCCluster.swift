import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

/// Simulated nodes that pull each other's stored batches through a `SimulatedNetwork`,
/// acknowledge what they merged (with their log end and GC frontier, as `PeerPuller` does),
/// and run tombstone GC: the harness of the GC simulation tests.
final class GCCluster {
    let count: Int
    var network: SimulatedNetwork
    let directories: [TemporaryDirectory]
    var nodes: [Logbook]
    var ledgers: [PeerLedger]
    /// The ledgers GC consults: `ledgers`, or for the unsafe baseline empty ones (no peers,
    /// so every node collects whenever it likes, as crdt-lite's `compactTombstones` allows).
    var gcLedgers: [PeerLedger]
    /// The simulated time GC runs see, in seconds.
    var now: Double = 1_000_000
    /// Pulls that found the sender's history start above the cursor.
    var snapshotsRequired = 0

    init(count: Int, seed: UInt64, registered: Bool) throws {
        self.count = count
        network = SimulatedNetwork(nodes: count, seed: seed, dropProbability: 0.1)
        directories = (0..<count).map { _ in TemporaryDirectory() }
        nodes = try directories.enumerated().map { index, directory in
            try Logbook.open(
                directory: directory.path, nodeId: NodeId(index + 1),
                options: smallLogOptions(.buffered))
        }
        ledgers = try directories.map { try PeerLedger(directory: $0.path) }
        if registered {
            for node in 0..<count {
                for peer in 0..<count where peer != node {
                    try ledgers[node].register(UInt64(peer + 1))
                }
            }
            gcLedgers = ledgers
        } else {
            gcLedgers = try directories.map { try PeerLedger(directory: $0.path + "/unsafe") }
        }
    }

    func close() throws {
        for node in nodes { try node.close() }
        for directory in directories { directory.remove() }
    }

    /// `receiver` pulls one body from `sender` (cut short by the network when `cut`), merges
    /// it, moves its cursor and acknowledges, as `PeerPuller.catchUp` does for one request.
    /// Returns true when the cursor moved.
    @discardableResult
    func pull(_ receiver: Int, from sender: Int, cut: Bool) async throws -> Bool {
        let name = "sim://node\(sender + 1)"
        let cursor = ledgers[receiver].cursor(for: name)
        guard let shipped = try batches(of: sender, from: cursor) else {
            snapshotsRequired += 1
            return false
        }
        var next = cursor
        if shipped.batchCount > 0 {
            let arrived = cut ? network.deliver(shipped.bytes) : shipped.bytes
            let decoded: (changes: [Change<String, String, Value>], nextOffset: UInt64)
            do {
                decoded = try ShippedBatchReader.changes(in: arrived, from: cursor)
            } catch {
                return false  // a cut body is refused whole; the cursor stays
            }
            _ = try await nodes[receiver].merge(decoded.changes)
            try nodes[receiver].sync()
            try ledgers[receiver].setCursor(
                decoded.nextOffset, for: name, nodeId: UInt64(sender + 1))
            next = decoded.nextOffset
        }
        if network.canReach(sender, receiver) {
            try ledgers[sender].acknowledge(
                .init(
                    offset: next, peerLogEnd: nodes[receiver].durableOffset,
                    peerCollectedBelow: nodes[receiver].collectedBelow),
                byNode: UInt64(receiver + 1))
        }
        return next != cursor
    }

    /// The sender's stored batches from `cursor`, nil when it answers "snapshot required".
    private func batches(of sender: Int, from cursor: UInt64) throws -> ShippedBatches? {
        do {
            return try nodes[sender].storedBatches(
                from: cursor, maxBytes: network.pick(256..<8192))
        } catch {
            if error.code == .snapshotRequired { return nil }
            throw error
        }
    }

    /// Tombstone GC on `node` at the cluster's time.
    @discardableResult
    func collect(_ node: Int, retention: Double) throws -> TombstoneCollectionReport {
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = retention
        options.now = Date(timeIntervalSince1970: now)
        return try nodes[node].collectTombstones(peers: gcLedgers[node], options)
    }

    /// Heals the network and runs rounds of everyone pulling everyone to the end, then GC
    /// everywhere, until nothing changes (at most `rounds`).
    func settle(rounds: Int, retention: Double) async throws {
        network.heal()
        for _ in 0..<rounds {
            now += retention + 1
            for receiver in 0..<count {
                for sender in 0..<count where sender != receiver {
                    while try await pull(receiver, from: sender, cut: false) {}
                }
            }
            for node in 0..<count { try collect(node, retention: retention) }
        }
    }
}
