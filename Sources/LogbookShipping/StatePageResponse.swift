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

    /// The answer for `changes`; the caller adds the position headers.
    package static func response(
        _ changes: [Change<String, String, Value>], request: Request, changesMax: Int
    ) async throws -> Response {
        guard asksForBatches(request) else {
            return try ChangeJSONMessages.response(
                changes, request: request, changesMax: changesMax)
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
