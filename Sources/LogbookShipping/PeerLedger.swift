import Foundation
import Logbook
import LogbookStorage

/// What a node remembers about its peers, durably (`peers.json` beside the log): for each
/// peer it pulls from, the offset its next pull starts at; for each peer that pulls from it,
/// the offset that peer last acknowledged (what tombstone GC may rely on). Every change is
/// written through a temporary file, synced and renamed, the directory synced after.
public final class PeerLedger: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    /// One peer's entry.
    public struct Entry: Codable, Equatable, Sendable {
        /// Pull: the offset in the peer's log the next pull starts at.
        public var cursor: UInt64?
        /// Ack: the offset of our log the peer has merged everything below.
        public var acknowledged: UInt64?
        /// The peer's node id, once known.
        public var nodeId: UInt64?
        /// When the entry last changed (seconds since 1970).
        public var updated: Double
    }

    private let path: String
    private let lock = NSLock()
    private var entries: [String: Entry]

    /// Opens the ledger in a Logbook directory (an absent file is an empty ledger; a damaged
    /// one is refused with its path).
    public init(directory: String) throws {
        path = directory + "/peers.json"
        if let data = FileManager.default.contents(atPath: path) {
            do {
                entries = try JSONDecoder().decode([String: Entry].self, from: data)
            } catch {
                throw LogbookError(.badMetadata, "peer ledger unreadable: \(error)", path: path)
            }
        } else {
            entries = [:]
        }
    }

    /// Every peer's entry, by peer name (its URL for pulls, its node id for acks).
    public var all: [String: Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// The pull cursor for `peer` (0 when never pulled).
    public func cursor(for peer: String) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return entries[peer]?.cursor ?? 0
    }

    /// Records a pull cursor durably (written, synced and renamed before returning).
    public func setCursor(_ cursor: UInt64, for peer: String, nodeId: UInt64?) throws {
        try update(peer) {
            $0.cursor = cursor
            if let nodeId { $0.nodeId = nodeId }
        }
    }

    /// Records an acknowledgement durably; an older offset never lowers a newer one.
    public func acknowledge(_ offset: UInt64, by peer: String, nodeId: UInt64?) throws {
        try update(peer) {
            $0.acknowledged = max($0.acknowledged ?? 0, offset)
            if let nodeId { $0.nodeId = nodeId }
        }
    }

    private func update(_ peer: String, _ change: (inout Entry) -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        var entry = entries[peer] ?? Entry(updated: 0)
        change(&entry)
        entry.updated = Date().timeIntervalSince1970
        entries[peer] = entry
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(entries)
        do {
            try PosixFileSystem().replaceFile(path, with: [UInt8](data), durable: true)
        } catch {
            throw LogbookError(error)
        }
    }
}
