import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// `logbook hub migrate` as an operator runs it: against the test PostgreSQL it creates the
// schema once and then finds nothing to do; a URL that cannot work is refused with the reason
// and a non-zero status, quickly, with the password never printed.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"] != nil
            || ProcessInfo.processInfo.environment["CI"] == "true"))
struct HubCommandTests {
    @Test func migrateIsRepeatableAndBadURLsSayWhy() throws {
        guard LogbookExecutable.built() != nil else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        let first = try LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(first.status == 0, "\(first.standardError)")
        let again = try LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(again.status == 0)
        #expect(
            again.standardOutput.contains("schema already at version"), "\(again.standardOutput)")

        let refused = try LogbookExecutable.run([
            "hub", "migrate", "--postgres",
            "postgres://someone:hunter2@127.0.0.1:1/db?sslmode=disable",
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot connect"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("hunter2"), "the password was printed")

        let malformed = try LogbookExecutable.run(["hub", "migrate", "--postgres", "mysql://x/y"])
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("expected postgres://"))
    }

    /// `hub token create` and `hub serve` as an operator runs them: a crdt-lite client posts
    /// and reads through the stream with the printed token, another stream's name is
    /// refused, and SIGTERM stops the process with status 0.
    @Test func aServedHubTakesChangesWithAPrintedTokenAndStopsOnSIGTERM() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        #expect(try LogbookExecutable.run(["hub", "migrate", "--postgres", url]).status == 0)
        let stream = "process-\(UUID().uuidString.prefix(8))"
        let created = try LogbookExecutable.run([
            "hub", "token", "create", "--postgres", url, "--stream", stream,
        ])
        #expect(created.status == 0, "\(created.standardError)")
        let token = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("lbh_"))

        let port = Int.random(in: 20_000..<50_000)
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "hub", "serve", "--postgres", url, "--port", String(port), "--log-level", "warning",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let base = "http://127.0.0.1:\(port)"
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await Self.request(base + "/readyz", token: nil).status) == 200
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "the hub did not become ready on port \(port)")
        let body =
            #"[{"record_id":"lamp","col_name":"name","value":"Lamp","col_version":1,"db_version":1,"node_id":9,"local_db_version":1}]"#
        let posted = try await Self.request(
            base + "/streams/\(stream)/changes", method: "POST", body: Data(body.utf8), token: token
        )
        #expect(posted.status == 200, "\(posted.body)")
        let read = try await Self.request(base + "/streams/\(stream)/changes?since=0", token: token)
        #expect(read.status == 200 && read.body.contains("Lamp"))
        let other = try await Self.request(
            base + "/streams/elsewhere/changes?since=0", token: token)
        #expect(other.status == 401)
        let metrics = try await Self.request(base + "/metrics", token: nil)
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("logbook_hub_merges_total 1"), "\(metrics.body.prefix(2000))")
        #expect(metrics.body.contains("logbook_hub_pulled_changes_total 1"))

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    static func request(_ url: String, method: String = "GET", body: Data? = nil, token: String?)
        async throws -> (status: Int, body: String)
    {
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 5
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self)
        )
    }
}
