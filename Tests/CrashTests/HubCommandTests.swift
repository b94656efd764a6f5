import Foundation
import LogbookTesting
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
    @Test func migrateIsRepeatableAndBadURLsSayWhy() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        let first = try await LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(first.status == 0, "\(first.standardError)")
        let again = try await LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(again.status == 0)
        #expect(
            again.standardOutput.contains("schema already at version"), "\(again.standardOutput)")

        let refused = try await LogbookExecutable.run([
            "hub", "migrate", "--postgres",
            "postgres://someone:hunter2@127.0.0.1:1/db?sslmode=disable",
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot connect"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("hunter2"), "the password was printed")

        let malformed = try await LogbookExecutable.run([
            "hub", "migrate", "--postgres", "mysql://x/y",
        ])
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("expected postgres://"))
    }

    /// `hub token create` and `hub serve` as an operator runs them: a crdt-lite client posts
    /// and reads through the stream with the printed token, another stream's name is
    /// refused, and SIGTERM stops the process with status 0.
    @Test func aServedHubTakesChangesWithAPrintedTokenAndStopsOnSIGTERM() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        #expect(try await LogbookExecutable.run(["hub", "migrate", "--postgres", url]).status == 0)
        let stream = "process-\(UUID().uuidString.prefix(8))"
        let created = try await LogbookExecutable.run([
            "hub", "token", "create", "--postgres", url, "--stream", stream,
        ])
        #expect(created.status == 0, "\(created.standardError)")
        let token = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("lbh_"))

        let (process, base) = try await Self.startHub(executable, url: url)
        defer { if process.isRunning { process.terminate() } }
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
        await process.exited()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// Migrates the database at `url` and makes, with the command line, a new stream named
    /// `label-XXXXXXXX`, a scratch directory (the caller removes it) and a file in it
    /// holding a token for the stream.
    static func scratchStream(url: String, label: String) async throws -> (
        stream: String, directory: String, tokenFile: String
    ) {
        #expect(try await LogbookExecutable.run(["hub", "migrate", "--postgres", url]).status == 0)
        let stream = "\(label)-\(UUID().uuidString.prefix(8))"
        let created = try await LogbookExecutable.run([
            "hub", "token", "create", "--postgres", url, "--stream", stream,
        ])
        #expect(created.status == 0, "\(created.standardError)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-hub-\(stream)"
        ).path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        let tokenFile = directory + "/hub-token"
        try created.standardOutput.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        return (stream, directory, tokenFile)
    }

    /// Starts `logbook hub serve` on a free-looking port and waits until it is ready.
    static func startHub(_ executable: URL, url: String, options: [String] = []) async throws
        -> (Process, String)
    {
        let port = LocalPorts.consecutive()
        let process = Process()
        process.executableURL = executable
        process.arguments =
            [
                "hub", "serve", "--postgres", url, "--port", String(port), "--log-level", "warning",
            ] + options
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let base = "http://127.0.0.1:\(port)"
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await Self.request(base + "/readyz", token: nil).status) == 200
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        if !ready { process.terminate() }
        try #require(ready, "the hub did not become ready on port \(port)")
        return (process, base)
    }

    /// `logbook sync --hub` and `logbook serve --hub` as a user runs them: two nodes converge
    /// through a served hub, a second sync moves nothing, and a serving node follows the
    /// stream and takes a change another node pushed.
    @Test func nodesSyncThroughAServedHubFromTheCommandLine() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        let (stream, directory, tokenFile) = try await Self.scratchStream(url: url, label: "cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (hub, base) = try await Self.startHub(executable, url: url)
        defer { if hub.isRunning { hub.terminate() } }
        let (first, second) = (directory + "/a", directory + "/b")
        let sync = { (node: String) async throws -> LogbookExecutable.Output in
            try await LogbookExecutable.run([
                "sync", node, "--hub", base, "--stream", stream, "--token-file", tokenFile,
            ])
        }
        for (node, id) in [(first, "1"), (second, "2")] {
            #expect(try await LogbookExecutable.run(["init", node, "--node", id]).status == 0)
            let put = try await LogbookExecutable.run(["put", node, "entity/\(id)", "name=N\(id)"])
            #expect(put.status == 0, "\(put.standardError)")
        }
        let pushedFirst = try await sync(first)
        #expect(pushedFirst.status == 0, "\(pushedFirst.standardError)")
        #expect(
            pushedFirst.standardOutput.contains("pushed 1 changes"), "\(pushedFirst.standardOutput)"
        )
        let both = try await sync(second)
        #expect(both.standardOutput.contains("pushed 1 changes"), "\(both.standardOutput)")
        #expect(both.standardOutput.contains("accepted 1"), "\(both.standardOutput)")
        let last = try await sync(first)
        #expect(last.standardOutput.contains("pushed 0 changes"), "an echo went back")
        let digest = { (output: LogbookExecutable.Output) in
            output.standardOutput.split(separator: "\n").first { $0.hasPrefix("digest:") }
        }
        let settled = try await sync(second)
        #expect(digest(last) != nil && digest(last) == digest(settled))
        // The same round as one JSON document: nothing left to move, the same digest.
        let quiet = try await LogbookExecutable.run([
            "sync", first, "--hub", base, "--stream", stream, "--token-file", tokenFile, "--json",
        ])
        let round = try #require(
            try JSONSerialization.jsonObject(with: Data(quiet.standardOutput.utf8))
                as? [String: Any])
        #expect(round["command"] as? String == "sync" && round["stream"] as? String == stream)
        #expect((round["pushed"] as? [String: Any])?["sent"] as? Int == 0)
        #expect((round["pulled"] as? [String: Any])?["accepted"] as? Int == 0)
        #expect(
            digest(settled).map { "digest: " + (round["digest"] as? String ?? "") == $0 } == true)

        // A serving node follows the stream: a change the first node pushes reaches it.
        let nodeTokenFile = directory + "/node-token"
        try "node-secret\n".write(toFile: nodeTokenFile, atomically: true, encoding: .utf8)
        let port = LocalPorts.consecutive()
        let serving = Process()
        serving.executableURL = executable
        serving.arguments = [
            "serve", second, "--port", String(port), "--token-file", nodeTokenFile, "--hub", base,
            "--stream", stream, "--hub-token-file", tokenFile, "--log-level", "warning",
        ]
        serving.standardOutput = FileHandle.nullDevice
        try serving.run()
        defer { if serving.isRunning { serving.terminate() } }
        #expect(
            try await LogbookExecutable.run(["put", first, "entity/late", "name=Late"]).status == 0)
        await #expect(try sync(first).status == 0)
        var arrived = false
        for _ in 0..<100 where !arrived {
            let read = try? await Self.request(
                "http://127.0.0.1:\(port)/changes?since=0", token: "node-secret")
            arrived = read?.body.contains("Late") == true
            if !arrived { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(arrived, "the serving node did not take the pushed change")
        kill(serving.processIdentifier, SIGTERM)
        await serving.exited()
        #expect(serving.terminationStatus == 0)
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

extension HubCommandTests {
    /// `make demo-hub`'s script, on the debug binary and the test database: five nodes and
    /// two hub processes end with one state, and the script says so.
    /// Tombstone GC through a served hub as a user runs it: `hub gc` names the registered
    /// nodes, `sync --gc` collects and fences, the hub's scheduled passes (`--gc-every`)
    /// delete the row after every node collected, and the next `sync --gc` unfences.
    @Test func tombstoneGCThroughAServedHubFromTheCommandLine() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        let (stream, directory, tokenFile) = try await Self.scratchStream(url: url, label: "gc")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (hub, base) = try await Self.startHub(
            executable, url: url,
            options: ["--gc-every", "0.2", "--gc-retention", "0", "--gc-grace", "0"])
        defer { if hub.isRunning { hub.terminate() } }
        let nodes = [directory + "/a", directory + "/b"]
        let sync = { (node: String, gc: Bool) async throws -> String in
            let output = try await LogbookExecutable.run(
                ["sync", node, "--hub", base, "--stream", stream, "--token-file", tokenFile]
                    + (gc ? ["--gc"] : []))
            #expect(output.status == 0, "\(output.standardError)")
            return output.standardOutput
        }
        for (index, node) in nodes.enumerated() {
            #expect(
                try await LogbookExecutable.run(["init", node, "--node", "\(index + 1)"]).status
                    == 0)
        }
        #expect(
            try await LogbookExecutable.run(["put", nodes[0], "entity/x", "name=X"]).status == 0)
        for node in nodes { _ = try await sync(node, false) }
        #expect(try await LogbookExecutable.run(["delete", nodes[1], "entity/x"]).status == 0)
        for _ in 0..<2 { for node in nodes { _ = try await sync(node, false) } }
        let pass = try await LogbookExecutable.run([
            "hub", "gc", "--postgres", url, "--stream", stream, "--gc-retention", "0",
        ])
        #expect(
            pass.standardOutput.contains("\(stream): 2 registered nodes"), "\(pass.standardOutput)")
        for node in nodes {
            let collected = try await sync(node, true)
            #expect(collected.contains("gc: collected 1 tombstones"), "\(collected)")
        }
        var unfenced = false
        for _ in 0..<50 where !unfenced {
            try await Task.sleep(for: .milliseconds(200))
            unfenced = try await sync(nodes[0], true).contains("unfenced 1")
        }
        #expect(unfenced, "the hub's scheduled passes never let the fence lift")
    }

    @Test func theHubDemoConverges() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/demo-hub.sh").path]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "LOGBOOK": executable.path
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let (status, text) = try await onOwnThread { [process, output] in
            try process.run()
            let text = String(
                decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        #expect(status == 0, "\(text.suffix(3000))")
        #expect(text.contains("Converged: five nodes"), "\(text.suffix(3000))")
        #expect(text.contains("entity/doomed") && text.contains("deleted"))
    }
}
