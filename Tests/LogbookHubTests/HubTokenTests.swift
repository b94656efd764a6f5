import LogbookHub
import Testing

// Tokens grant the streams they name and nothing else; the database keeps only hashes.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubTokenTests {
    @Test func aTokenGrantsOnlyItsStreamsAndReadOnlyMeansRead() async throws {
        try await HubTestDatabase.withStore { store in
            let home = HubTestDatabase.freshStream("home")
            let office = HubTestDatabase.freshStream("office")
            let writer = try await store.createToken(streams: [home], readOnly: false)
            let reader = try await store.createToken(streams: [home, office], readOnly: true)
            #expect(writer.hasPrefix("lbh_") && writer.count > 40 && writer != reader)

            #expect(try await store.grant(for: writer, stream: home)?.grant == .readWrite)
            #expect(try await store.grant(for: writer, stream: office) == nil)
            #expect(try await store.grant(for: reader, stream: home)?.grant == .read)
            #expect(try await store.grant(for: reader, stream: office)?.grant == .read)
            #expect(try await store.grant(for: writer + "x", stream: home) == nil)
            #expect(try await store.grant(for: "", stream: home) == nil)
            #expect(try await store.grant(for: writer, stream: "no-such-stream") == nil)
            #expect(try await store.grant(for: writer, stream: "bad name!") == nil)
        }
    }

    @Test func theSecretIsNotStored() async throws {
        try await HubTestDatabase.withClient { client in
            try await HubSchema.migrate(client, logger: HubTestDatabase.logger)
            let store = HubStore(client: client, logger: HubTestDatabase.logger)
            let secret = try await store.createToken(
                streams: [HubTestDatabase.freshStream()], readOnly: false)
            // Exactly one row, keyed by the secret's 32-byte SHA-256, and no column anywhere
            // in the token tables holds the secret's text.
            let rows = try await client.query(
                """
                SELECT count(*) FILTER (WHERE token_hash = sha256(convert_to(\(secret), 'UTF8'))
                    AND octet_length(token_hash) = 32),
                    count(*) FILTER (WHERE t::text LIKE '%' || \(secret) || '%')
                FROM logbook_tokens AS t
                """)
            for try await (hashed, plain) in rows.decode((Int64, Int64).self) {
                #expect(hashed == 1 && plain == 0)
            }
        }
    }
}
