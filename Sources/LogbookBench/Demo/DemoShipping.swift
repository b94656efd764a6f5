import Foundation
import Logbook
import LogbookCRDT
import LogbookShipping

/// Part 4 of the demo: two nodes on loopback, each serving its log, write conflicting
/// changes, pull from each other, and end with one state; then one deletes records and both
/// collect the tombstones once each has seen the other's acknowledgement.
struct DemoShipping {
    let directory: String
    let narrate: (String) -> Void

    func run() async throws {
        narrate(
            "\n== Two nodes on loopback ship their logs to each other (\(directory)-node1, -node2)")
        let token = "demo-token"
        var nodes: [(logbook: Logbook, ledger: PeerLedger, url: String)] = []
        var servers: [RunningServer] = []
        defer { for server in servers { server.stop() } }
        for number in 1...2 {
            let path = "\(directory)-node\(number)"
            try DemoDirectory.replace(path)
            let logbook = try Logbook.open(directory: path, nodeId: NodeId(number))
            let ledger = try PeerLedger(directory: path)
            let server = try await ShippingServer(
                logbook: logbook, configuration: ShippingConfiguration(token: token), ledger: ledger
            ).start()
            servers.append(server)
            nodes.append((logbook, ledger, server.url()))
            narrate("node \(number) serves \(server.url())")
        }
        for (index, node) in nodes.enumerated() {
            for number in 0..<1000 {
                try await node.logbook.insertOrUpdate(
                    "entity/device-\(number % 200)",
                    fields: [
                        ("name", .string("written by node \(index + 1), round \(number)")),
                        ("content.level", .int(Int64(number))),
                    ])
            }
        }
        narrate(
            "both wrote 1000 updates to the same 200 records; digests \(nodes[0].logbook.stateDigest()) and \(nodes[1].logbook.stateDigest())"
        )
        // Each node registers the other: a node takes acknowledgements (which gate its
        // tombstone GC) from registered peers only.
        try nodes[0].ledger.register(2)
        try nodes[1].ledger.register(1)
        func pull(_ receiver: Int, from sender: Int) async throws -> PeerPuller.Report {
            try await PeerPuller(
                logbook: nodes[receiver].logbook, peer: nodes[sender].url, token: token,
                ledger: nodes[receiver].ledger
            ).catchUp()
        }
        for (receiver, sender) in [(1, 0), (0, 1), (1, 0)] {
            let report = try await pull(receiver, from: sender)
            narrate(
                "node \(receiver + 1) pulled \(report.received) changes (\(formatBytes(Int64(report.bytes))) of stored batches) from node \(sender + 1), accepted \(report.accepted)"
                    + (report.stateTransferReasons.map { "; as its state: \($0)" } ?? "")
            )
        }
        var same = nodes[0].logbook.stateDigest() == nodes[1].logbook.stateDigest()
        narrate("converged: \(same ? "yes" : "NO"), digest \(nodes[0].logbook.stateDigest())")

        // Tombstone GC: node 1 deletes records; after the exchange both collect the
        // tombstones, fenced until the other has collected too.
        for number in 0..<20 { try await nodes[0].logbook.deleteRecord("entity/device-\(number)") }
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0  // the default is a day
        func exchangeAndCollect() async throws -> [TombstoneCollectionReport] {
            for (receiver, sender) in [(1, 0), (0, 1), (1, 0), (0, 1)] {
                _ = try await pull(receiver, from: sender)
            }
            return try nodes.map { try $0.logbook.collectTombstones(peers: $0.ledger, options) }
        }
        let first = try await exchangeAndCollect()
        narrate(
            "node 1 deleted 20 records; tombstone GC (retention 0 for the demo): node 1 collected \(first[0].collected) (\(first[0].recordsRemoved) log records), node 2 \(first[1].collected) (\(first[1].recordsRemoved)); fenced until the other has collected: \(first[0].fenced) and \(first[1].fenced)"
        )
        let second = try await exchangeAndCollect()
        same = nodes[0].logbook.stateDigest() == nodes[1].logbook.stateDigest()
        narrate(
            "after one more exchange: fences lifted \(second[0].unfenced) and \(second[1].unfenced); tombstones held \(second[0].tombstonesAfter) and \(second[1].tombstonesAfter); converged: \(same ? "yes" : "NO")"
        )
        for node in nodes { try node.logbook.close() }
        if !same { throw DemoError.diverged("the two nodes") }
        narrate(
            "next: logbook serve \(directory)-node1 --port 7000 --token-file token.txt --peer http://127.0.0.1:7001"
        )
    }
}
