import LogbookStorage

/// Tombstone GC with no registered peer runs standalone: it collects every tombstone past
/// the retention time. A ledger that was lost (deleted, emptied to `{}`, restored from
/// before the first `peers add`) must not make a node that had peers standalone, or GC
/// collects tombstones a peer never saw and the next sync brings the records back. So the
/// directory's `logbook.json` records, durably, that a membership once existed
/// (`peerLedger`), and GC refuses to run while the ledger shows none.
extension PeerLedger {
    /// Records in `logbook.json` that this directory's peers have a membership.
    func recordMembership() throws(LogbookError) {
        guard
            var metadata = try NodeMetadata.read(directory: directory, fileSystem: fileSystem),
            metadata.peerLedger != true
        else { return }
        metadata.peerLedger = true
        try metadata.write(directory: directory, fileSystem: fileSystem)
    }

    /// Throws `.badMetadata` when `logbook.json` says this node had peers and the ledger
    /// names none: GC would run standalone on a lost ledger. A ledger that names a
    /// membership the metadata does not record yet (written before the rule) gets it
    /// recorded here.
    func requireMembershipKept() throws(LogbookError) {
        if hasMembership {
            try recordMembership()
            return
        }
        guard
            try NodeMetadata.read(directory: directory, fileSystem: fileSystem)?.peerLedger == true
        else { return }
        throw LogbookError(
            .badMetadata,
            "peers.json names no peer, but this node had registered peers (logbook.json "
                + "records it): the ledger was deleted, emptied or replaced. Tombstone GC would "
                + "run standalone and collect deletions the peers never saw. Restore peers.json "
                + "from a copy, or register each peer again (`logbook peers DIR add NODE`; "
                + "`logbook peers DIR remove NODE` for one that is gone)",
            path: directory + "/peers.json")
    }
}
