import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Three hub processes on one database, four nodes syncing through hubs picked at random;
// one hub killed with `kill -9` while a node pushes through it, PostgreSQL restarted with
// `pg_ctl restart -m immediate` while nodes sync: every node retries through the hubs left,
// nothing acknowledged is lost, and all end with the state of every change written.
@Suite(.enabled(if: PrivateCluster.enabled))
struct HubFaultTests {
    @Test func killedHubsAndARestartedDatabaseLoseNothingAcknowledged() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        // A cluster of its own: the restart must not cut the other tests' connections.
        let cluster = try await PrivateCluster.started()
        defer { cluster.stop() }
        let url = cluster.url
        let (stream, directory, tokenFile) = try await HubCommandTests.scratchStream(
            url: url, label: "faults")
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var hubs: [(process: Process, url: String)] = []
        for _ in 0..<3 { hubs.append(try await HubCommandTests.startHub(executable, url: url)) }
        // Killed, not stopped: a hub left behind would hold the test runner's output open.
        defer {
            for hub in hubs where hub.process.isRunning {
                kill(hub.process.processIdentifier, SIGKILL)
                hub.process.waitUntilExit()
            }
        }

        // Four nodes write changes of their own (updates, field and record deletions on
        // shared and own records) in two batches, taken in with `logbook append`.
        var random = SeededGenerator(seed: 15)
        let reference = CRDT<String, String, Value>(nodeId: 999)
        var writers: [CRDT<String, String, Value>] = []
        var nodes: [String] = []
        for id in 1...4 {
            let node = directory + "/node\(id)"
            #expect(
                try await LogbookExecutable.run(["init", node, "--node", String(id)]).status == 0)
            writers.append(CRDT<String, String, Value>(nodeId: UInt64(id)))
            nodes.append(node)
        }
        func write(_ index: Int, count: Int) async throws {
            let changes = Self.changes(
                by: writers[index], node: index + 1, count: count, using: &random)
            reference.mergeChanges(changes)
            let file = nodes[index] + ".jsonl"
            let lines = try changes.map {
                String(decoding: try JSONEncoder().encode($0), as: UTF8.self)
            }
            try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let appended = try await LogbookExecutable.run(["append", nodes[index], file])
            #expect(appended.status == 0, "\(appended.standardError)")
        }
        func sync(_ node: String, through hub: String) async throws -> LogbookExecutable.Output {
            try await LogbookExecutable.run(
                ["sync", node, "--hub", hub, "--stream", stream, "--token-file", tokenFile],
                timeout: .seconds(120))
        }
        func startSync(_ node: String, through hub: String) throws -> Process {
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "sync", node, "--hub", hub, "--stream", stream, "--token-file", tokenFile,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }

        // First every node writes and syncs once through a hub picked at random.
        for index in nodes.indices {
            try await write(index, count: 1_500)
            let hub = hubs[Int.random(in: 0..<hubs.count, using: &random)].url
            let result = try await sync(nodes[index], through: hub)
            #expect(result.status == 0, "\(result.standardError)")
        }
        for index in nodes.indices { try await write(index, count: index == 0 ? 30_000 : 12_000) }

        // A hub dies with a push of 30,000 changes in flight through it. Whatever it
        // acknowledged before is committed; the rest the node pushes again elsewhere. The
        // push goes through a proxy that holds each 16 KiB chunk 20 ms (at most 800 KiB/s),
        // and the hub is killed once 256 KiB of it went up: past the sync's pull, and
        // seconds before the push's megabytes could all have gone.
        let hubPort = try #require(hubs[0].url.split(separator: ":").last.flatMap { Int($0) })
        let slow = try LoopbackProxy(upstreamPort: hubPort)
        defer { slow.stop() }
        slow.setFaults { .delay(milliseconds: 20) }
        let first = try startSync(nodes[0], through: "http://127.0.0.1:\(slow.port)")
        let pushDeadline = ContinuousClock.now + .seconds(120)
        while slow.bytesToUpstream < 256 * 1024, first.isRunning,
            ContinuousClock.now < pushDeadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(slow.bytesToUpstream >= 256 * 1024, "the push never got under way")
        kill(hubs[0].process.processIdentifier, SIGKILL)
        await hubs[0].process.exited()
        await first.exited()
        #expect(first.terminationStatus != 0, "the push had ended before the hub was killed")

        // PostgreSQL restarts (immediate: no checkpoint, recovery from the WAL) as soon as
        // one of three nodes syncing through a second hub has had its push acknowledged,
        // while the other two are still pushing.
        let syncing = try nodes.dropFirst().map { try startSync($0, through: hubs[1].url) }
        while syncing.allSatisfy(\.isRunning) { try await Task.sleep(for: .milliseconds(5)) }
        let restarted = try await onOwnThread {
            cluster.pgCtl(["-m", "immediate", "-w", "restart"])
        }
        #expect(restarted == 0, "pg_ctl restart failed")
        for process in syncing { await process.exited() }

        // Every node then syncs through that second hub until it has pushed nothing: a node's
        // push cursor is kept per hub URL, so whatever that hub acknowledged before or
        // during the restart is not pushed again, and a lost acknowledged change would
        // leave the digests short. Syncs refused while the database comes back retry.
        var outputs: [String: String] = [:]
        var everyRound = ""
        for round in 0..<3 {
            for node in nodes {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    let result = try await sync(node, through: hubs[1].url)
                    if result.status == 0 {
                        outputs[node] = result.standardOutput
                        everyRound += result.standardOutput
                        break
                    }
                    let inTime = ContinuousClock.now < deadline
                    try #require(
                        inTime, "round \(round): \(node) cannot sync: \(result.standardError)")
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
        // The restart began a new epoch of the stream (its server's start time changed), and
        // since it lost nothing, no node's position was refused: no cursor restarted.
        #expect(
            cluster.psql(
                """
                DO $$ BEGIN IF (SELECT count(*) FROM logbook_stream_epochs) < 2 THEN
                    RAISE EXCEPTION 'the restart began no epoch'; END IF; END $$
                """) == 0)
        #expect(!everyRound.contains("restarted"), "\(everyRound)")
        #expect(!everyRound.contains("from the start"), "\(everyRound)")
        let expected = "digest: \(StateDigest(of: reference))"
        for node in nodes {
            let output = outputs[node] ?? ""
            #expect(output.contains(expected), "\(node): \(output)")
            #expect(output.contains("pushed 0 changes"), "\(node) still had something to push")
        }
        // A new node pulling from the third hub gets the same state.
        let newcomer = directory + "/node5"
        #expect(try await LogbookExecutable.run(["init", newcomer, "--node", "5"]).status == 0)
        let pulled = try await sync(newcomer, through: hubs[2].url)
        #expect(pulled.standardOutput.contains(expected), "\(pulled.standardOutput)")
    }

    /// `count` changes written by `replica`: mostly updates of two fields, some field and
    /// record deletions, a third of them on 50 records every node shares.
    static func changes(
        by replica: CRDT<String, String, Value>, node: Int, count: Int,
        using random: inout SeededGenerator
    ) -> [Change<String, String, Value>] {
        var changes: [Change<String, String, Value>] = []
        for step in 0..<count / 2 {
            let shared = step % 3 == 0
            let record = "r\(Int.random(in: 0..<(shared ? 50 : 4_000), using: &random))"
            switch Int.random(in: 0..<20, using: &random) {
            case 0: if let deletion = replica.deleteRecord(record) { changes.append(deletion) }
            case 1:
                if let field = replica.deleteField(record, fieldName: "b") { changes.append(field) }
            default:
                changes += replica.insertOrUpdate(
                    record,
                    fields: [("a", .int(Int64(step))), ("b", .string("n\(node)"))])
            }
        }
        return changes
    }
}

/// A throwaway PostgreSQL cluster for one test: `initdb` into a temporary directory (as the
/// `postgres` user when running as root, since initdb refuses root), started on a free
/// loopback port with a private socket directory, removed by `stop()`.
struct PrivateCluster {
    /// Where PostgreSQL's programs are (`scripts/with-postgres.sh` sets it).
    static let binaries = ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_BIN"]
    /// Whether tests that need a cluster of their own run: the programs are given, or CI
    /// demands them (then a missing one fails the test).
    static var enabled: Bool {
        binaries != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// A cluster made and started on a thread of its own (the programs block).
    static func started() async throws -> PrivateCluster {
        let bin = try #require(binaries, "LOGBOOK_TEST_POSTGRES_BIN is unset")
        return try await onOwnThread { try PrivateCluster(bin: bin) }
    }

    let bin: String
    let directory: String
    let port: Int
    var url: String { "postgres://logbook@127.0.0.1:\(port)/postgres?sslmode=disable" }
    var dataDirectory: String { directory + "/data" }

    init(bin: String) throws {
        self.bin = bin
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "logbook-cluster-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        let initialized = Self.run(
            bin + "/initdb", ["-D", directory + "/data", "-U", "logbook", "-A", "trust"])
        // A port picked at random may be taken: try a few.
        var started: Int? = nil
        for _ in 0..<5 where initialized == 0 && started == nil {
            let port = LocalPorts.consecutive()
            if Self.start(bin: bin, directory: directory, port: port) == 0 { started = port }
        }
        guard let port = started else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: directory])
        }
        self.port = port
    }

    /// Starts the server on the cluster's port again (after `pgCtl(["stop"])`).
    @discardableResult
    func start() -> Int32 { Self.start(bin: bin, directory: directory, port: port) }

    private static func start(bin: String, directory: String, port: Int) -> Int32 {
        run(
            bin + "/pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-o",
                "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1",
                "start",
            ])
    }

    /// Runs `sql` with psql, stopping at the first error; its exit status.
    @discardableResult
    func psql(_ sql: String) -> Int32 {
        Self.run(
            bin + "/psql",
            [
                "-h", "127.0.0.1", "-p", String(port), "-U", "logbook", "-d", "postgres",
                "-v", "ON_ERROR_STOP=1", "-c", sql,
            ])
    }

    /// Runs `pg_ctl -D DATA arguments…`; its exit status.
    @discardableResult
    func pgCtl(_ arguments: [String]) -> Int32 {
        Self.run(bin + "/pg_ctl", ["-D", directory + "/data"] + arguments)
    }

    func stop() {
        pgCtl(["-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a PostgreSQL program, as `postgres` when this process is root.
    ///
    /// Through a shell that first closes every descriptor above 2: Foundation's `Process`
    /// sees a child end only once every holder of a socket it hands the child has closed it,
    /// and the server `pg_ctl start` leaves behind would otherwise hold it for ever.
    static func run(_ program: String, _ arguments: [String]) -> Int32 {
        var command = [program] + arguments
        if getuid() == 0 {
            // In a session of its own: runuser signals its process group when it ends, which
            // would otherwise be the test runner's.
            command =
                ["/usr/bin/setsid", "-w", "/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        let closeInherited =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null; exec "$@""#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", closeInherited, "postgres-program"] + command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
