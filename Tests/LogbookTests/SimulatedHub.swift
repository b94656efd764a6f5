import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting

/// A hub in memory with the PostgreSQL hub's semantics, for `HubGCSimulationTests`: it holds
/// state, not history (a CRDT whose local versions are the hub versions, so its
/// `getChangesSince` is the hub's "rows above a version"), takes pushes with crdt-lite's
/// merge, keeps every node's acknowledgement, lists collectable tombstones and runs GC by
/// the shipped `StreamCollectionRule`. A reader's offset is the next hub version it reads.
///
/// With `consultsNodes` false it is the unsafe baseline: it drops tombstones once they are
/// older than the retention time, whatever the nodes hold.
final class SimulatedHub: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private let state = CRDT<String, String, Value>(nodeId: 1_000)
    private var nodes: [UInt64: StreamCollectionRule.Node] = [:]
    private var sightings: [RetentionSighting] = []
    private var rule = StreamCollectionRule()
    /// Pushes the network holds back (a request the hub commits after its sender gave up),
    /// with when they were sent.
    private var inFlight: [(bytes: [UInt8], sent: Double)] = []
    let consultsNodes: Bool
    /// The rule's grace, in seconds.
    let graceSeconds: Double

    init(consultsNodes: Bool, graceSeconds: Double) {
        self.consultsNodes = consultsNodes
        self.graceSeconds = graceSeconds
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    var tombstoneCount: Int { locked { state.tombstoneCount() } }
    var records: [String: Record<String, Value>] { locked { state.getData() } }

    /// Holds a push back: it may be committed later (`deliverInFlight`).
    func holdBack(_ bytes: [UInt8], sent: Double) { locked { inFlight.append((bytes, sent)) } }

    /// Commits the held-back push at `index` (modulo their count) when it was sent less
    /// than `delayMax` seconds before `now`, and forgets the ones older than that: a push
    /// reaches the hub within a bounded time or never (the sender's timeout, the hub's
    /// bound on its database calls).
    func deliverInFlight(at index: Int, now: Double, delayMax: Double) throws {
        let pushes = locked {
            inFlight.removeAll { now - $0.sent >= delayMax }
            return inFlight
        }
        guard !pushes.isEmpty else { return }
        let chosen = index % pushes.count
        _ = try push(pushes[chosen].bytes)
        _ = locked { inFlight.remove(at: chosen) }
    }

    func push(_ bytes: [UInt8]) throws -> PushReceipt {
        let changes = try ShippedBatchReader.changes(in: bytes, from: 0).changes
        return locked {
            let accepted = state.mergeChanges(changes)
            return PushReceipt(
                accepted: accepted.count, peerVersion: state.getClock().currentTime())
        }
    }

    /// Rows from hub version `offset` on, at most `limit` of them (whole versions: each
    /// version is one row here).
    func batches(from offset: UInt64, limit: Int) -> BatchAnswer {
        locked {
            let current = state.getClock().currentTime()
            if offset > 0, offset < rule.collectedBelow {
                return .snapshotRequired(
                    reason: "below the hub's collected horizon \(rule.collectedBelow)")
            }
            if offset > current + 1 { return .diverged(reason: "offset \(offset) past \(current)") }
            let rows = state.getChangesSince(offset == 0 ? 0 : offset - 1).prefix(limit)
            var writer = ShippedBatchWriter()
            for row in rows { writer.add(row, at: row.localDbVersion) }
            let next = rows.last.map { $0.localDbVersion + 1 } ?? offset
            return .batches(
                FetchedBatches(
                    bytes: writer.finish(), batchCount: writer.batchCount,
                    durableOffset: rows.count < limit ? max(next, current + 1) : next,
                    nextOffset: next))
        }
    }

    func statePage() -> StatePage {
        locked {
            StatePage(
                changes: state.getChangesSince(0), nextAfter: nil,
                covered: state.getClock().currentTime() + 1)
        }
    }

    func accept(_ ack: ReplicationAcknowledgement) {
        locked {
            var node = nodes[ack.node] ?? .init(settledVersion: 0, collectedBelow: 0)
            if let settled = ack.settled, settled > 0 {
                node.settledVersion = max(node.settledVersion, settled - 1)
            }
            if let collected = ack.listedCollectedBelow {
                node.collectedBelow = max(node.collectedBelow, collected)
            }
            nodes[ack.node] = node
        }
    }

    func collectable(from version: UInt64) -> CollectableTombstones {
        locked {
            let entries = state.getTombstones()
                .filter {
                    $0.value.localDbVersion >= version
                        && $0.value.localDbVersion < rule.collectableBelow
                }
                .map {
                    CollectableTombstones.Entry(recordId: $0.key, version: $0.value.localDbVersion)
                }
                .sorted { ($0.version, $0.recordId) < ($1.version, $1.recordId) }
            return CollectableTombstones(
                entries: entries, listedBelow: max(version, rule.collectableBelow),
                collectableBelow: rule.collectableBelow, collectedBelow: rule.collectedBelow)
        }
    }

    /// One GC pass at `now`: the horizons move by the rule (or, unsafe, to the retention
    /// time alone), and the tombstones below the collected horizon are dropped.
    func collect(now: Double, retention: Double) {
        locked {
            let current = state.getClock().currentTime()
            sightings.note(.init(time: now, logEnd: current + 1), retention: retention)
            let retained = sightings.retainedBelow(now: now, retention: retention)
            if consultsNodes {
                rule.advance(
                    nodes: Array(nodes.values), retainedBelow: retained, now: now,
                    graceSeconds: graceSeconds)
            } else {
                rule.collectableBelow = max(rule.collectableBelow, retained)
                rule.collectedBelow = rule.collectableBelow
            }
            let below = rule.collectedBelow
            let dropped = state.getTombstones().filter { $0.value.localDbVersion < below }.map(
                \.key)
            state.forgetTombstones(dropped)
        }
    }
}

/// How node `node` reaches the simulated hub through the network (the hub is the network's
/// last index): pulls, pushes, acknowledgements and lists, each lost, cut or partitioned as
/// the network says.
struct SimulatedHubTransport: ReplicationTransport, PushTransport {
    let hub: SimulatedHub
    let network: SimulatedNetwork
    let node: Int
    let hubIndex: Int
    var injectsFaults = true
    /// The simulated time, for pushes the network holds back.
    var now: Double = 0
    /// Hold back every push (the sender sees its answer lost).
    var holdsBackPushes = false

    var peerName: String { "sim://hub/streams/s" }

    private func reach() throws {
        try network.checkReachable(node, hubIndex)
    }

    private func lost() -> Bool { injectsFaults && network.dropsMessage() }
    private func answerLost() -> Bool { injectsFaults && network.losesAnswer() }

    func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
        async throws -> BatchAnswer
    {
        try reach()
        let answer = hub.batches(from: offset, limit: network.pick(1..<40))
        guard injectsFaults, case .batches(var batches) = answer else { return answer }
        batches.bytes = network.deliver(batches.bytes)
        return .batches(batches)
    }

    func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage {
        try reach()
        if lost() { throw SimulatedNetworkFault.lost }
        return hub.statePage()
    }

    func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws {
        try reach()
        if lost() { throw SimulatedNetworkFault.lost }
        hub.accept(acknowledgement)
        if answerLost() { throw SimulatedNetworkFault.answerLost }
    }

    func fetchCollectable(from version: UInt64) async throws -> CollectableTombstones {
        try reach()
        if lost() { throw SimulatedNetworkFault.lost }
        return hub.collectable(from: version)
    }

    func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt {
        try reach()
        if lost() { throw SimulatedNetworkFault.lost }
        if holdsBackPushes || (injectsFaults && network.chance(0.05)) {
            hub.holdBack(batches, sent: now)
            throw SimulatedNetworkFault.answerLost
        }
        let receipt = try hub.push(batches)
        if answerLost() { throw SimulatedNetworkFault.answerLost }
        return receipt
    }
}
