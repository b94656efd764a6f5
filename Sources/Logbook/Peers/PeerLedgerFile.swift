import Foundation

/// The bytes of `peers.json`: the entries, and the log they were written for
/// (`logbook.json`'s `logId`), so a ledger copied from another node's directory, or from a
/// diverged copy of this one, is not read as this log's: its acknowledgements would let
/// tombstone GC collect deletions the peers never saw.
///
/// `{"log": "<32 hex digits>", "peers": {name: entry, …}}`. A file from before the binding
/// is the entries alone, at the top level; it is read as this log's (nothing says
/// otherwise) and the next write binds it.
struct PeerLedgerFile: Codable {
    /// The log the entries belong to (nil when written for a directory without an
    /// identity, or read from a file from before the binding).
    var log: String?
    var peers: [String: PeerLedger.Entry]

    /// The file's entries and log, in either form.
    static func decode(_ bytes: [UInt8]) throws -> PeerLedgerFile {
        let data = Data(bytes)
        if let bound = try? JSONDecoder().decode(PeerLedgerFile.self, from: data) {
            return bound
        }
        return PeerLedgerFile(
            log: nil, peers: try JSONDecoder().decode([String: PeerLedger.Entry].self, from: data))
    }

    /// The file's bytes: sorted keys, indented, so a person can read and diff it.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(self)
    }

    /// Where a file written for another log is moved at this ledger's first write.
    static let setAsideSuffix = ".set-aside"
}
