/// One run of tombstone GC through a hub over any `ReplicationTransport`: asks the hub for
/// the tombstones its rule lets nodes collect, from where this node's last run stopped, and
/// collects them page by page (`Logbook.collectTombstones(listed:hub:peers:_:)`), until the
/// list reaches the hub's horizon. The hub hears how far this node got in its next
/// acknowledgement (`ReplicationSession.acknowledgeCursor`). docs/maintenance.md, "GC
/// through a hub".
public struct HubCollectionSession: Sendable {
    let logbook: Logbook
    let ledger: PeerLedger
    let transport: any ReplicationTransport
    let options: TombstoneCollectionOptions

    /// A run collecting in `logbook` what the hub `transport` reaches lists, with this
    /// node's peers in `ledger` (a mesh peer blocks GC through a hub).
    public init(
        logbook: Logbook, ledger: PeerLedger, transport: any ReplicationTransport,
        options: TombstoneCollectionOptions = TombstoneCollectionOptions()
    ) {
        self.logbook = logbook
        self.ledger = ledger
        self.transport = transport
        self.options = options
    }

    /// Collects every page the hub lists; returns the runs' figures added up.
    public func run() async throws -> TombstoneCollectionReport {
        let peer = transport.peerName
        var total: TombstoneCollectionReport?
        while true {
            let from = logbook.listedCollectedBelow(peer: peer)
            let listed = try await transport.fetchCollectable(from: from)
            guard listed.listedBelow >= from else {
                throw ReplicationError(
                    message: "\(peer): the list of collectable tombstones went back from \(from) "
                        + "to \(listed.listedBelow)")
            }
            let report = try logbook.collectTombstones(
                listed: listed, hub: peer, peers: ledger, options)
            total = total.map { $0.followed(by: report) } ?? report
            if report.blockedBecause != nil || options.dryRun
                || listed.listedBelow >= listed.collectableBelow || listed.listedBelow == from
            {
                return total ?? report
            }
        }
    }
}

extension TombstoneCollectionReport {
    /// This run's figures followed by a later run's: counts added, states the later one's.
    func followed(by later: TombstoneCollectionReport) -> TombstoneCollectionReport {
        var sum = later
        sum.tombstonesBefore = tombstonesBefore
        sum.bytesBefore = bytesBefore
        sum.collected += collected
        sum.recordsRemoved += recordsRemoved
        sum.segmentsRewritten += segmentsRewritten
        sum.unfenced += unfenced
        sum.seconds += seconds
        return sum
    }
}
