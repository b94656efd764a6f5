import Logbook

/// Replication between two in-process Logbooks through a `SimulatedNetwork`: the receiver's
/// `ReplicationSession` fetches from the sender's `ReplicationSource`, the shipped code on
/// both sides, with the network's partitions, cut transfers, lost answers and delays in
/// between. Nodes are numbered from 0 (the network's indexes).
public struct SimulatedReplicationTransport: ReplicationTransport {
    let network: SimulatedNetwork
    let source: ReplicationSource
    let receiver: Int
    let sender: Int
    /// The receiver's cursor key: `sim://node<sender + 1>`.
    public var peerName: String { "sim://node\(sender + 1)" }
    /// The largest body a fetch returns is drawn from this range (below what was asked),
    /// so batch boundaries fall differently in every run.
    public var fetchBytes = 256..<8192
    /// False: only partitions apply (no cuts, losses or delays), to let a run settle.
    public var injectsFaults = true

    /// The transport `receiver` uses to reach `sender`, whose side is `source`.
    public init(
        network: SimulatedNetwork, from receiver: Int, to sender: Int, source: ReplicationSource
    ) {
        self.network = network
        self.source = source
        self.receiver = receiver
        self.sender = sender
    }

    /// The sender's `ReplicationSource.batches`, limited to a random size from `fetchBytes`,
    /// the body cut by the network when it says so.
    public func fetchBatches(from offset: UInt64, epoch: UInt64?, maxBytes: Int, wait: Duration?)
        async throws -> BatchAnswer
    {
        try network.checkReachable(receiver, sender)
        if injectsFaults { await network.delay() }
        let limit = min(maxBytes, network.pick(fetchBytes))
        let answer = try source.batches(from: offset, epoch: epoch, maxBytes: limit)
        guard case .batches(var batches) = answer else { return answer }
        if injectsFaults { batches.bytes = network.deliver(batches.bytes) }
        return .batches(batches)
    }

    /// The sender's `ReplicationSource.statePage`; lost whole when the network drops it (a
    /// cut JSON page fails to decode whole).
    public func fetchStatePage(after: String?, changesMax: Int) async throws -> StatePage {
        try network.checkReachable(receiver, sender)
        if injectsFaults { await network.delay() }
        let page = source.statePage(after: after, changesMax: changesMax)
        if injectsFaults && network.dropsMessage() { throw SimulatedNetworkFault.lost }
        return page
    }

    /// The sender's `ReplicationSource.accept`: lost before it arrives, or its answer lost
    /// after it was stored, as the network says.
    public func acknowledge(_ acknowledgement: ReplicationAcknowledgement) async throws {
        try network.checkReachable(receiver, sender)
        if injectsFaults { await network.delay() }
        if injectsFaults && network.dropsMessage() { throw SimulatedNetworkFault.lost }
        try source.accept(acknowledgement)
        if injectsFaults && network.losesAnswer() { throw SimulatedNetworkFault.answerLost }
    }
}
