import Foundation
import Logbook
import LogbookCRDT
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Three `logbook serve` processes on loopback pull from each other while clients write
// conflicting changes to all three; one is killed with SIGKILL mid-transfer and restarted;
// all three end with the same state digest.
@Suite struct ServeProcessTests {
    let token = "process-test-token"

    private func request(_ url: String, method: String = "GET", body: Data? = nil) async throws
        -> (status: Int, body: String)
    {
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 5
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self)
        )
    }

    /// The node's digest from `GET /status`, or nil while it does not answer.
    private func digest(port: Int) async -> String? {
        guard let status = try? await request("http://127.0.0.1:\(port)/status"),
            status.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(status.body.utf8))
                as? [String: Any]
        else { return nil }
        return object["digest"] as? String
    }

    /// The node's Prometheus text.
    private func metrics(port: Int) async throws -> String {
        try await request("http://127.0.0.1:\(port)/metrics").body
    }

    /// Waits up to 10 s for a node to answer on `port`.
    /// Whether `process` answers on `port`: false as soon as it exits (a port taken by
    /// another program, a bad argument), or after 120 s. Not a few seconds: the whole suite
    /// on two cores delays a process's start by many.
    private func isServing(port: Int, _ process: Process) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline {
            if await digest(port: port) != nil { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// A `logbook serve` of `directory`, alone, on a random port and answering; killed when
    /// it does not come up. The caller kills it when done.
    private func startedServe(_ executable: URL, _ directory: String) async throws
        -> (process: Process, port: Int)
    {
        let port = LocalPorts.consecutive()
        let process = try serve(executable, directory, port: port, peers: [])
        guard await isServing(port: port, process) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw ServeDidNotComeUp(port: port)
        }
        return (process, port)
    }

    private func serve(_ executable: URL, _ directory: String, port: Int, peers: [Int]) throws
        -> Process
    {
        let process = Process()
        process.executableURL = executable
        // The token from a file, as docs/shipping.md advises (argv is visible in `ps`).
        let tokenFile = directory + "-token"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        process.arguments =
            [
                "serve", directory, "--port", "\(port)", "--token-file", tokenFile, "--interval",
                "50",
            ]
            + peers.flatMap { ["--peer", "http://127.0.0.1:\($0)"] }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func threeServeProcessesConvergeThroughAKillAndRestart() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let base = LocalPorts.consecutive(3)
        let ports = [base, base + 1, base + 2]
        let directories = (1...3).map {
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "logbook-serve-\(UUID().uuidString.prefix(8))-\($0)"
            ).path
        }
        var processes: [Process] = []
        defer {
            for process in processes where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
            for directory in directories {
                try? FileManager.default.removeItem(atPath: directory)
                try? FileManager.default.removeItem(atPath: directory + "-token")
            }
        }
        for (index, directory) in directories.enumerated() {
            #expect(
                try await LogbookExecutable.run(["init", directory, "--node", "\(index + 1)"])
                    .status == 0
            )
            // Acknowledgements are taken from registered peers only.
            for peer in 1...3 where peer != index + 1 {
                let added = try await LogbookExecutable.run(["peers", directory, "add", "\(peer)"])
                #expect(added.status == 0)
            }
        }
        func start(_ index: Int) throws -> Process {
            try serve(
                executable, directories[index], port: ports[index],
                peers: ports.filter { $0 != ports[index] })
        }
        for index in 0..<3 { processes.append(try start(index)) }
        for (port, process) in zip(ports, processes) {
            let ready = await isServing(port: port, process)
            #expect(ready, "node on port \(port) did not come up")
        }
        // Clients write conflicting changes (same records, different values) to each node.
        for (index, port) in ports.enumerated() {
            let client = CRDT<String, String, Value>(nodeId: NodeId(100 + index))
            var changes: [Change<String, String, Value>] = []
            for round in 0..<300 {
                changes += client.insertOrUpdate(
                    "entity/e\(round % 30)",
                    fields: [("name", .string("client \(index) round \(round)"))])
            }
            let posted = try await request(
                "http://127.0.0.1:\(port)/changes", method: "POST",
                body: try JSONEncoder().encode(changes))
            #expect(posted.status == 200)
            if index == 1 {
                // Node 2 dies mid-transfer (its peers are pulling), then comes back.
                kill(processes[1].processIdentifier, SIGKILL)
                await processes[1].exited()
                processes[1] = try start(1)
            }
        }
        var digests: [String?] = []
        let converging = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < converging {
            digests = []
            for port in ports { digests.append(await digest(port: port)) }
            if digests.allSatisfy({ $0 != nil }) && Set(digests).count == 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(digests.allSatisfy { $0 != nil })
        #expect(Set(digests).count == 1, "digests \(digests)")
        // Not the empty state: every client's records arrived everywhere.
        let empty = StateDigest(of: CRDT<String, String, Value>(nodeId: 1)).description
        #expect(digests.first != empty)
        let everything = try await request("http://127.0.0.1:\(ports[1])/changes?since=0")
        let merged = try JSONDecoder().decode(
            [Change<String, String, Value>].self, from: Data(everything.body.utf8))
        #expect(Set(merged.map(\.recordId)).count == 30)
        // Each follower reports its lag and what it received, per peer.
        let exported = try await metrics(port: ports[0])
        for peer in ports.dropFirst() {
            #expect(
                exported.contains(#"logbook_peer_lag_offsets{peer="http://127.0.0.1:\#(peer)"}"#))
            #expect(
                exported.contains(
                    #"logbook_peer_received_changes_total{peer="http://127.0.0.1:\#(peer)"}"#))
        }
        for process in processes { process.terminate() }
    }

    @Test func aServingNodeCompactsWhenItsLogIsDirty() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-serve-compact-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A log of ten writes per column, sealed: nine in ten records are superseded.
        var options = LogbookOptions()
        options.durability = .buffered
        options.log.segmentSizeMax = 64 * 1024
        let writer = try Logbook.open(directory: directory, nodeId: 1, options: options)
        for round in 0..<10 {
            for record in 0..<300 {
                try await writer.insertOrUpdate(
                    "r\(record)", fields: [("v", .int(Int64(round))), ("w", .int(Int64(-round)))])
            }
        }
        try writer.sealActiveSegment()
        let digest = writer.stateDigest().description
        let sizeBefore = writer.sizeBytes
        try writer.close()

        let port = LocalPorts.consecutive()
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "serve", directory, "--port", "\(port)", "--token", token, "--compact-every", "0.3",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let printed = PrintedLines()
        output.fileHandleForReading.readabilityHandler = { handle in
            printed.append(handle.availableData)
        }
        defer { output.fileHandleForReading.readabilityHandler = nil }
        let deadline = ContinuousClock.now + .seconds(30)
        while !printed.text.contains("compact:") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        // 6,000 changes after the writer's epoch mark.
        #expect(printed.text.contains("compact: 6001 -> "), "serve printed: \(printed.text)")
        #expect(await self.digest(port: port) == digest, "serving the same state")
        process.terminate()
        await process.exited()
        let reopened = try Logbook.open(directory: directory, options: options)
        #expect(reopened.stateDigest().description == digest)
        #expect(reopened.sizeBytes < sizeBefore / 2)
        try reopened.close()
    }
}

/// A `logbook serve` that exited or did not answer within `isServing`'s bound.
private struct ServeDidNotComeUp: Error, CustomStringConvertible {
    let port: Int
    var description: String { "logbook serve did not come up on port \(port)" }
}

/// What a child process printed, gathered by its pipe's handler.
private final class PrintedLines: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var bytes = Data()

    func append(_ data: Data) { lock.withLock { bytes.append(data) } }
    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}

// SIGTERM and a port in use, on the real binary.
extension ServeProcessTests {
    /// A fresh node directory (initialized as node 1), removed by the caller.
    private func initializedDirectory() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-serve-\(UUID().uuidString.prefix(8))"
        ).path
        #expect(try await LogbookExecutable.run(["init", directory, "--node", "1"]).status == 0)
        return directory
    }

    @Test func sigtermStopsServeWithExitZeroAndNothingToRecover() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let directory = try await initializedDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: directory + "-token")
        }
        let (process, port) = try await startedServe(executable, directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let client = CRDT<String, String, Value>(nodeId: 100)
        let changes = (0..<200).flatMap {
            client.insertOrUpdate("entity/e\($0)", fields: [("name", .string("n\($0)"))])
        }
        let posted = try await request(
            "http://127.0.0.1:\(port)/changes", method: "POST",
            body: try JSONEncoder().encode(changes))
        #expect(posted.status == 200)
        // /metrics comes from swift-prometheus: engine, request figures; no digest label.
        let exported = try await metrics(port: port)
        for name in [
            "logbook_appended_changes_total", "logbook_fsync_seconds_bucket",
            "logbook_group_commit_appenders", "logbook_next_offset", "hb_requests",
        ] {
            #expect(exported.contains(name), "\(name) missing from /metrics")
        }
        #expect(!exported.contains("digest="), "no state digest as a label")
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try #require(!process.isRunning, "serve did not stop within 10 s of SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let reopened = try Logbook.open(directory: directory)
        defer { try? reopened.close() }
        #expect(reopened.recovery.isClean, "recovery: \(reopened.recovery)")
        #expect(reopened.records().count == 200)
    }

    /// Issue 60, class 2: with `DIR/lock` deleted, or replaced by a new file, while `serve`
    /// runs, `put` and `compact` are still refused as a second writer, and nothing is lost.
    @Test func aDeletedOrReplacedLockFileLetsNoSecondWriterIn() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let directory = try await initializedDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: directory + "-token")
        }
        let (process, port) = try await startedServe(executable, directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let lockFile = directory + "/lock"
        for replace in [false, true] {
            // First the file is deleted; then a new one is put where it was.
            if replace {
                #expect(FileManager.default.createFile(atPath: lockFile, contents: nil))
            } else {
                try FileManager.default.removeItem(atPath: lockFile)
            }
            for command in [["put", directory, "e/second", "n=1"], ["compact", directory]] {
                let refused = try await LogbookExecutable.run(command)
                #expect(
                    refused.status != 0, "\(command) ran beside serve: \(refused.standardOutput)")
                #expect(
                    refused.standardError.contains("open in another process"),
                    "\(command): \(refused.standardError)")
            }
        }
        #expect(await digest(port: port) != nil, "serve kept serving")
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        let reopened = try Logbook.open(directory: directory)
        defer { try? reopened.close() }
        #expect(reopened.getRecord("e/second") == nil)
    }

    @Test func aPortInUseIsAClearErrorAndANonZeroExit() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let first = try await initializedDirectory()
        let second = try await initializedDirectory()
        defer {
            for directory in [first, second] {
                try? FileManager.default.removeItem(atPath: directory)
                try? FileManager.default.removeItem(atPath: directory + "-token")
            }
        }
        let (occupant, port) = try await startedServe(executable, first)
        defer { if occupant.isRunning { kill(occupant.processIdentifier, SIGKILL) } }
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: second + "-token"))
        let refused = try await LogbookExecutable.run(
            ["serve", second, "--port", "\(port)", "--token-file", second + "-token"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("port \(port)"), "stderr: \(refused.standardError)")
        // Its log was closed on the way out: a reader opens it with nothing to recover.
        let reopened = try Logbook.open(directory: second)
        #expect(reopened.recovery.isClean)
        try reopened.close()
    }
}

// `logbook sync --from`: a first pull takes the peer's state, or its whole log with --history.
extension ServeProcessTests {
    @Test func aFirstSyncTakesThePeersStateUnlessHistoryIsAsked() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let peer = try await initializedDirectory()
        let (fromState, fromHistory) = (peer + "-state", peer + "-history")
        defer {
            for directory in [peer, fromState, fromHistory] {
                try? FileManager.default.removeItem(atPath: directory)
            }
            try? FileManager.default.removeItem(atPath: peer + "-token")
        }
        for (directory, node) in [(fromState, "2"), (fromHistory, "3")] {
            #expect(
                try await LogbookExecutable.run(["init", directory, "--node", node]).status == 0)
            #expect(try await LogbookExecutable.run(["peers", peer, "add", node]).status == 0)
        }
        let (process, port) = try await startedServe(executable, peer)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Ten rounds over the same 20 records: a history of 200 changes, a state of 20.
        let client = CRDT<String, String, Value>(nodeId: 100)
        let changes = (0..<200).flatMap {
            client.insertOrUpdate("entity/e\($0 % 20)", fields: [("name", .string("n\($0)"))])
        }
        let posted = try await request(
            "http://127.0.0.1:\(port)/changes", method: "POST",
            body: try JSONEncoder().encode(changes))
        #expect(posted.status == 200)
        let expected = await digest(port: port)

        let sync = [
            "--from", "http://127.0.0.1:\(port)", "--token-file", peer + "-token", "--json",
        ]
        for (directory, extra, bootstraps, received) in [
            (fromState, [String](), 1, 20), (fromHistory, ["--history"], 0, 200),
        ] {
            let synced = try await LogbookExecutable.run(["sync", directory] + sync + extra)
            #expect(synced.status == 0, "\(synced.standardError)")
            let report = try #require(
                JSONSerialization.jsonObject(with: Data(synced.standardOutput.utf8))
                    as? [String: Any])
            let pulled = try #require(report["pulled"] as? [String: Any])
            #expect(pulled["bootstraps"] as? Int == bootstraps, "\(extra): \(pulled)")
            #expect(pulled["received"] as? Int == received, "\(extra): \(pulled)")
            #expect(report["digest"] as? String == expected)
        }
        let misplaced = try await LogbookExecutable.run(
            ["sync", fromHistory, "--hub", "http://127.0.0.1:1", "--stream", "s", "--history"]
                + ["--token-file", peer + "-token"])
        #expect(misplaced.status == 64, "\(misplaced.standardError)")
    }
}
