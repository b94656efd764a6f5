import Foundation
import Logbook

/// `logbook peers DIR add|remove|list`: the change made, or every peer the ledger knows
/// (`PeerLedger.Entry`'s properties, by the peer's name).
package struct PeersReport: CommandReport {
    package let command = "peers"
    package var directory: String
    /// add, remove or list.
    package var action: String
    /// The peer added or removed.
    package var nodeId: UInt64?
    /// `list` only: the ledger, by peer name (a URL, or `node-N` for a registered node).
    package var peers: [String: PeerLedger.Entry]?

    package init(directory: String, action: String, nodeId: UInt64) {
        self.directory = directory
        self.action = action
        self.nodeId = nodeId
    }

    package init(directory: String, listing ledger: PeerLedger) {
        self.directory = directory
        action = "list"
        peers = ledger.all
    }

    package var text: String {
        guard let peers else {
            return action == "add"
                ? "registered node \(nodeId ?? 0)" : "removed node \(nodeId ?? 0)"
        }
        if peers.isEmpty { return "no peers" }
        return peers.sorted { $0.key < $1.key }.map { name, entry in
            "\(terminalSafe(name)): \(Self.fields(entry).joined(separator: ", "))"
        }.joined(separator: "\n")
    }

    private static func fields(_ entry: PeerLedger.Entry) -> [String] {
        var fields: [String] = []
        if let node = entry.nodeId { fields.append("node \(node)") }
        if entry.registered == true { fields.append("registered") }
        if entry.removed == true { fields.append("removed") }
        if let cursor = entry.cursor { fields.append("pulled to \(cursor)") }
        if let acknowledged = entry.acknowledged { fields.append("acknowledged \(acknowledged)") }
        if let settled = entry.settledAcknowledged { fields.append("settled \(settled)") }
        if let end = entry.peerLogEnd { fields.append("its log end \(end)") }
        if let below = entry.peerCollectedBelow { fields.append("it collected below \(below)") }
        return fields
    }
}
