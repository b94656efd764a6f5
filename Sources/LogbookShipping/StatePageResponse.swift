import HTTPTypes
import Hummingbird
import Logbook
import LogbookCRDT
import NIOCore

/// The body of a `GET /snapshot` answer, a node's or a hub's: crdt-lite JSON in the form the
/// request asks for (`ChangeJSONMessages`), or shipped batches (`StatePageBatches`) when it
/// asks with `format=batches`, as a Logbook receiver does.
package enum StatePageResponse {
    /// Whether `request` asks for shipped batches rather than crdt-lite JSON.
    package static func asksForBatches(_ request: Request) -> Bool {
        request.uri.queryParameters.get("format") == StatePageBatches.formatName
    }

    /// The answer for `changes`; the caller adds the position headers. With
    /// `sortingJSON`, a JSON answer puts them in `getChangesSince`'s order first, for
    /// crdt-lite clients; shipped batches go as they come, since their receiver merges them
    /// and merging gives the same state in any order.
    package static func response(
        _ changes: [Change<String, String, Value>], request: Request, changesMax: Int,
        sortingJSON: Bool
    ) async throws -> Response {
        guard asksForBatches(request) else {
            // O(page log page): off the cooperative pool, as the batches' encoding is.
            let ordered =
                sortingJSON
                ? try await ShippingServer.offThePool {
                    changes.sorted(by: ChangedState<String, String, Value>.isInSyncOrder)
                } : changes
            return try ChangeJSONMessages.response(
                ordered, request: request, changesMax: changesMax)
        }
        // O(page) of encoding and compression: off the cooperative pool, as JSON's building is.
        let (bytes, batchCount) = try await ShippingServer.offThePool {
            StatePageBatches.encode(changes)
        }
        var headers = HTTPFields()
        headers[.contentType] = StatePageBatches.mediaType
        headers[.logbookBatchCount] = String(batchCount)
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
