import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

/// Simulated nodes that replicate each other with the shipped `ReplicationSession` and
/// `ReplicationSource` over a `SimulatedNetwork` (partitions, cut transfers, lost messages,
/// lost answers), and run tombstone GC: the harness of the shipping and GC simulations.
final class SimulatedCluster {
    let count: Int
    let network: SimulatedNetwork
    let directories: [TemporaryDirectory]
    var nodes: [Logbook]
    var ledgers: [PeerLedger]
    /// The ledgers GC consults: `ledgers`, or for the unsafe baseline empty ones (no peers,
    /// so every node collects whenever it likes, as crdt-lite's `compactTombstones` allows).
    var gcLedgers: [PeerLedger]
    /// The simulated time GC runs see, in seconds.
    var now: Double = 1_000_000
    /// State restores the sessions made (below a history start, or diverged).
    var snapshotsTaken = 0
    /// Pulls that failed because the network cut what they received or lost a message.
    var refused = 0
    /// Whether a session's first pull from a peer takes its state
    /// (`ReplicationSession.Options.bootstrapsFromState`, the default).
    var bootstrapsFromState = true

    /// `count` nodes, each registered as every other's peer (the sources refuse others'
    /// acknowledgements). With `gcConsultsPeers` false, GC ignores them (the unsafe rule).
    init(
        count: Int, seed: UInt64, dropProbability: Double = 0.1,
        answerLossProbability: Double = 0.05, gcConsultsPeers: Bool = true
    ) throws {
        self.count = count
        network = SimulatedNetwork(
            nodes: count, seed: seed, dropProbability: dropProbability,
            answerLossProbability: answerLossProbability)
        directories = (0..<count).map { _ in TemporaryDirectory() }
        nodes = try directories.enumerated().map { index, directory in
            try Logbook.open(
                directory: directory.path, nodeId: NodeId(index + 1),
                options: smallLogOptions(.buffered))
        }
        ledgers = try directories.map { try PeerLedger(directory: $0.path) }
        for node in 0..<count {
            for peer in 0..<count where peer != node {
                try ledgers[node].register(UInt64(peer + 1))
            }
        }
        gcLedgers =
            gcConsultsPeers
            ? ledgers : try directories.map { try PeerLedger(directory: $0.path + "/unsafe") }
    }

    func close() throws {
        for node in nodes { try node.close() }
        for directory in directories { directory.remove() }
    }

    /// The session `receiver` runs to replicate `sender`, through the network.
    func session(_ receiver: Int, from sender: Int, faults: Bool) -> ReplicationSession {
        var transport = SimulatedReplicationTransport(
            network: network, from: receiver, to: sender,
            source: ReplicationSource(logbook: nodes[sender], ledger: ledgers[sender]))
        transport.injectsFaults = faults
        var options = ReplicationSession.Options()
        options.statePageChanges = 3  // several pages per snapshot, even for small states
        options.bootstrapsFromState = bootstrapsFromState
        return ReplicationSession(
            logbook: nodes[receiver], ledger: ledgers[receiver], transport: transport,
            options: options)
    }

    /// `receiver` takes one step of replicating `sender` (`ReplicationSession.step`), with
    /// the network's faults when `faults`. A failure the network injected is absorbed (and
    /// counted); any other fails the run. Returns true when the cursor moved.
    @discardableResult
    func pull(_ receiver: Int, from sender: Int, faults: Bool) async throws -> Bool {
        let session = session(receiver, from: sender, faults: faults)
        let name = "sim://node\(sender + 1)"
        let before = ledgers[receiver].cursor(for: name)
        let injectedBefore = network.injected
        do {
            snapshotsTaken += try await session.step().snapshots
        } catch let error where error is ShippingFormatError || error is ReplicationError {
            // Only a body the network cut may be refused (a cut at a batch boundary decodes
            // but ends short of what the peer announced); a whole one refused is a bug.
            guard network.injected.cut > injectedBefore.cut else { throw error }
            refused += 1
        } catch is SimulatedNetworkFault {
            refused += 1
        }
        return ledgers[receiver].cursor(for: name) != before
    }

    /// Tombstone GC on `node` at the cluster's time.
    @discardableResult
    func collect(_ node: Int, retention: Double) throws -> TombstoneCollectionReport {
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = retention
        options.now = Date(timeIntervalSince1970: now)
        return try nodes[node].collectTombstones(peers: gcLedgers[node], options)
    }

    /// Heals the network and runs rounds of everyone pulling everyone to the end without
    /// faults, then (with `retention`) GC everywhere; `rounds` times. `among` limits it to
    /// some nodes.
    func settle(rounds: Int, retention: Double? = nil, among: Range<Int>? = nil) async throws {
        network.heal()
        let members = among ?? 0..<count
        for _ in 0..<rounds {
            now += (retention ?? 0) + 1
            for receiver in members {
                for sender in members where sender != receiver {
                    while try await pull(receiver, from: sender, faults: false) {}
                }
            }
            if let retention {
                for node in members { try collect(node, retention: retention) }
            }
        }
    }
}
