import Logbook

extension ReplicationReport {
    /// Why some of a pull's changes came as the peer's state rather than its stored batches,
    /// or nil when every change came as batches. Without it a first pull reads as "0 B of
    /// batches, 400 changes", which looks like a miscount.
    package var stateTransferReasons: String? {
        var reasons: [String] = []
        if bootstraps > 0 {
            reasons.append("a first pull from a peer starts from its state, not its history")
        }
        let positionsGone = snapshots - divergences
        if positionsGone > 0 {
            reasons.append(
                "the cursor was below the start of the peer's log"
                    + (positionsGone > 1 ? " (\(positionsGone) times)" : ""))
        }
        if divergences > 0 {
            reasons.append(
                "the peer no longer held this node's position (restored from an older copy?)"
                    + (divergences > 1 ? " (\(divergences) times)" : ""))
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}
