import Foundation
import PostgresNIO

/// What a token may do with one stream.
public enum HubGrant: Sendable, Equatable {
    /// Pull only.
    case read
    /// Push and pull.
    case readWrite
}

extension HubStore {
    /// Creates a token granting `streams` (created when absent), read-only or read-write;
    /// returns its secret, which is shown once: the database keeps only its SHA-256.
    public func createToken(streams names: [String], readOnly: Bool) async throws -> String {
        guard !names.isEmpty else {
            throw HubError.tooLarge("a token must name at least one stream")
        }
        var streams: [HubStream] = []
        for name in Set(names).sorted() {
            streams.append(try await stream(named: name, create: true))
        }
        let secret = Self.newSecret()
        let ids = streams.map(\.id)
        let logger = logger
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO logbook_tokens (token_hash, read_only)
                VALUES (sha256(convert_to(\(secret), 'UTF8')), \(readOnly))
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO logbook_token_streams (token_hash, stream_id)
                SELECT sha256(convert_to(\(secret), 'UTF8')), unnest(\(ids)::int8[])
                """, logger: logger)
        }
        return secret
    }

    /// What `token` may do with the stream named `name`: nil when the token is unknown or
    /// does not name the stream (the caller cannot tell which, by design).
    public func grant(for token: String, stream name: String) async throws -> (
        stream: HubStream, grant: HubGrant
    )? {
        guard Self.isWellFormed(token: token), (try? HubStream.checkName(name)) != nil
        else { return nil }
        let rows = try await client.query(
            """
            SELECT s.stream_id, t.read_only
            FROM logbook_tokens AS t
            JOIN logbook_token_streams AS g ON g.token_hash = t.token_hash
            JOIN logbook_streams AS s ON s.stream_id = g.stream_id
            WHERE t.token_hash = sha256(convert_to(\(token), 'UTF8')) AND s.name = \(name)
            """, logger: logger)
        for try await (id, readOnly) in rows.decode((Int64, Bool).self) {
            return (HubStream(id: id, name: name), readOnly ? .read : .readWrite)
        }
        return nil
    }

    /// Every token starts with this, so a leaked one is easy to search for.
    static let tokenPrefix = "lbh_"

    /// Whether `token` has the form `newSecret` gives every token: the prefix and 43
    /// base64url characters. Anything else is refused without asking the database.
    static func isWellFormed(token: String) -> Bool {
        let body = token.utf8.dropFirst(tokenPrefix.utf8.count)
        return token.hasPrefix(tokenPrefix) && body.count == 43
            && body.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// 32 bytes from the system's cryptographic generator, base64url without padding.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return tokenPrefix + text
    }
}
