import Foundation
import Logbook

/// The body of a hub's `GET streams/S/collectable?from=V`:
/// `{"entries": [{"record_id": R, "version": V}…], "listed_below": L, "collectable_below": G,
/// "collected_below": F}` (`CollectableTombstones`), as the hub writes it and a node reads
/// it. The node checks what it says against its own bounds before acting on it
/// (`Logbook.collectTombstones(listed:hub:peers:_:)`).
package enum CollectableTombstonesMessage {
    private struct Body: Codable {
        struct Entry: Codable {
            var recordId: String
            var version: UInt64
            enum CodingKeys: String, CodingKey {
                case version
                case recordId = "record_id"
            }
        }
        var entries: [Entry]
        var listedBelow: UInt64
        var collectableBelow: UInt64
        var collectedBelow: UInt64

        enum CodingKeys: String, CodingKey {
            case entries
            case listedBelow = "listed_below"
            case collectableBelow = "collectable_below"
            case collectedBelow = "collected_below"
        }
    }

    package static func encode(_ list: CollectableTombstones) throws -> Data {
        try JSONEncoder().encode(
            Body(
                entries: list.entries.map { .init(recordId: $0.recordId, version: $0.version) },
                listedBelow: list.listedBelow, collectableBelow: list.collectableBelow,
                collectedBelow: list.collectedBelow))
    }

    package static func decode(_ data: Data, from peer: String) throws -> CollectableTombstones {
        do {
            let body = try JSONDecoder().decode(Body.self, from: data)
            return CollectableTombstones(
                entries: body.entries.map { .init(recordId: $0.recordId, version: $0.version) },
                listedBelow: body.listedBelow, collectableBelow: body.collectableBelow,
                collectedBelow: body.collectedBelow)
        } catch {
            throw ReplicationError(
                message: "\(peer): the list of collectable tombstones does not decode: \(error)")
        }
    }
}
