import Foundation
import HTTPTypes
import Hummingbird
import LogbookCRDT
import NIOCore

/// crdt-lite's JSON on the wire, as every Logbook server speaks it (a node's `/changes`, a
/// hub stream's `/changes`): request bodies holding an array or JSON lines of changes, and
/// answers streamed as an array in the form the client asks for (`format(of:)`).
package enum ChangeJSONMessages {
    /// The size of one written piece of a JSON answer.
    package static let chunkBytes = 256 << 10

    /// A request's body, at most `bytesMax` of it; 413 naming the bound above it.
    package static func body(of request: Request, bytesMax: Int) async throws -> Data {
        do {
            return Data(try await request.body.collect(upTo: bytesMax).readableBytesView)
        } catch {
            throw HTTPError(.contentTooLarge, message: "request body over \(bytesMax) bytes")
        }
    }

    /// The changes in a request's body; 400 naming what is wrong when it is not crdt-lite
    /// JSON changes, or holds none, or the request's `format` is neither form. Each change
    /// is read in the form its keys are in, whatever `format` says: on a `POST` it is
    /// checked, as on every request, and names nothing else.
    package static func changes(in data: Data, of request: Request) throws -> [Change<
        String, String, Value
    >] {
        _ = try format(of: request)
        let changes: [Change<String, String, Value>]
        do {
            if data.first(where: { !$0.isJSONWhitespace }) == UInt8(ascii: "[") {
                changes = try ChangeJSON.decodeArray(data)
            } else {
                changes = try ChangeJSON.decodeLines(data)
            }
        } catch {
            throw HTTPError(.badRequest, message: "not crdt-lite JSON changes: \(error)")
        }
        guard !changes.isEmpty || !data.allSatisfy(\.isJSONWhitespace) else {
            throw HTTPError(.badRequest, message: "the body holds no changes")
        }
        return changes
    }

    /// `changes` as a streamed JSON array in the form the request asks for (`format`), with
    /// `Logbook-Change-Format` naming it; 413 when over `changesMax`, 400 for an unknown form.
    package static func response(
        _ changes: [Change<String, String, Value>], request: Request, changesMax: Int
    ) throws -> Response {
        try arrayResponse(count: changes.count, request: request, changesMax: changesMax) {
            format, writer in
            try await stream(changes, format: format, to: &writer)
        }
    }

    /// The form a request asks its changes in: `?format=rust|swift` when given, else what
    /// `Accept` names — `application/vnd.crdt-lite.swift+json` or `…rust+json`, or a
    /// `format=swift|rust` parameter on any media range — else the Rust form
    /// (`ChangeJSONFormat.standard`). 400 for an unknown `format`, on every request.
    package static func format(of request: Request) throws -> ChangeJSONFormat {
        if let name = request.uri.queryParameters.get("format") {
            guard let format = ChangeJSONFormat(rawValue: name) else {
                throw HTTPError(.badRequest, message: "format must be rust or swift")
            }
            return format
        }
        let accepted = request.headers[values: .accept].joined(separator: ",").lowercased()
        for format in ChangeJSONFormat.allCases {
            let name = format.rawValue
            if accepted.contains("vnd.crdt-lite.\(name)+json")
                || accepted.contains("format=\(name)")
            {
                return format
            }
        }
        return .standard
    }

    /// Writes `changes` as a JSON array in chunks of about `chunkBytes`, yielding between
    /// them: memory stays bounded by a chunk, and a large state (a snapshot of 100,000
    /// records) does not hold a thread of the cooperative pool from start to end. A chunk
    /// takes about 20 ms to encode here, what another request may wait behind it. A change
    /// that cannot be encoded (a NaN logged before NaN was refused) cuts the response short,
    /// which the receiver sees as malformed JSON.
    static func stream(
        _ changes: [Change<String, String, Value>], format: ChangeJSONFormat,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        var array = ArrayWriter(format: format)
        try await array.append(changes, to: &writer)
        try await array.finish(&writer)
    }

    /// The changes of `state` as `response(_:request:changesMax:)` answers them, built a
    /// window of `windows` at a time on NIO's blocking-work threads (`build`): the answer
    /// holds one window's changes at once, however many it sends. 413 when over
    /// `changesMax`.
    package static func windowedResponse(
        _ state: ChangedState<String, String, Value>, windows: (ends: [UInt64], changeCount: Int),
        request: Request, changesMax: Int,
        build:
            @escaping @Sendable (@escaping @Sendable () -> [Change<String, String, Value>])
            async throws -> [Change<String, String, Value>]
    ) throws -> Response {
        try arrayResponse(count: windows.changeCount, request: request, changesMax: changesMax) {
            format, writer in
            var array = ArrayWriter(format: format)
            var above = state.since
            for end in windows.ends {
                let from = above
                let changes = try await build { state.changes(above: from, through: end) }
                try await array.append(changes, to: &writer)
                above = end
            }
            try await array.finish(&writer)
        }
    }

    /// An answer of `count` changes that `write` streams in the form the request asks for,
    /// with `Logbook-Change-Format` naming it; 413 when over `changesMax`, 400 for an
    /// unknown form.
    private static func arrayResponse(
        count: Int, request: Request, changesMax: Int,
        _ write:
            @escaping @Sendable (ChangeJSONFormat, inout any ResponseBodyWriter) async throws
            -> Void
    ) throws -> Response {
        guard count <= changesMax else {
            throw HTTPError(.contentTooLarge, message: "\(count) changes exceed \(changesMax)")
        }
        let format = try self.format(of: request)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.logbookChangeFormat] = format.rawValue
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in try await write(format, &writer) })
    }

    /// A JSON array of changes written in chunks of about `chunkBytes`, yielding between
    /// them, its elements given in as many calls as the caller likes.
    struct ArrayWriter {
        let format: ChangeJSONFormat
        private var chunk = Data("[".utf8)
        private var isEmpty = true

        init(format: ChangeJSONFormat) {
            self.format = format
            chunk.reserveCapacity(chunkBytes + 4096)
        }

        mutating func append(
            _ changes: [Change<String, String, Value>], to writer: inout any ResponseBodyWriter
        ) async throws {
            for change in changes {
                if !isEmpty { chunk.append(UInt8(ascii: ",")) }
                isEmpty = false
                chunk.append(try ChangeJSON.encode(change, format: format))
                if chunk.count >= chunkBytes {
                    try await writer.write(ByteBuffer(bytes: chunk))
                    chunk.removeAll(keepingCapacity: true)
                    await Task.yield()
                }
            }
        }

        mutating func finish(_ writer: inout any ResponseBodyWriter) async throws {
            chunk.append(UInt8(ascii: "]"))
            try await writer.write(ByteBuffer(bytes: chunk))
            try await writer.finish(nil)
        }
    }
}

extension UInt8 {
    fileprivate var isJSONWhitespace: Bool {
        self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09
    }
}
