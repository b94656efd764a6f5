import Foundation
import Hummingbird
import Logbook

/// The body of `POST /ack`, `{"node": ID, "offset": N, "epoch": P, "log_end": E,
/// "collected_below": C}`, as a node and a hub read it (a hub ignores `epoch`); to a hub
/// also `"settled": S` (the settled pull cursor) and `"listed_collected_below": K` (how far
/// the node collected the hub's list).
package enum AcknowledgementMessage {
    private struct Body: Decodable {
        var node: UInt64
        var offset: UInt64
        var epoch: UInt64?
        var logEnd: UInt64?
        var collectedBelow: UInt64?
        var settled: UInt64?
        var listedCollectedBelow: UInt64?

        enum CodingKeys: String, CodingKey {
            case node, offset, epoch, settled
            case logEnd = "log_end"
            case collectedBelow = "collected_below"
            case listedCollectedBelow = "listed_collected_below"
        }
    }

    /// The acknowledgement in `data`; a 400 that shows the expected form otherwise.
    package static func decode(_ data: Data) throws -> ReplicationAcknowledgement {
        do {
            let body = try JSONDecoder().decode(Body.self, from: data)
            return ReplicationAcknowledgement(
                node: body.node, offset: body.offset, epoch: body.epoch, logEnd: body.logEnd,
                collectedBelow: body.collectedBelow, settled: body.settled,
                listedCollectedBelow: body.listedCollectedBelow)
        } catch {
            throw HTTPError(.badRequest, message: #"expected {"node": ID, "offset": N}: \#(error)"#)
        }
    }
}
