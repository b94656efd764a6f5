import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// The hub's database put back from a physical copy — its data directory copied while the
// server was stopped, restored over it later — after nodes had pushed into and pulled from
// what the copy lacks. The server that comes back is another, so the stream's first merge
// begins an epoch; the node whose pushes were lost pushes its state again in one round, and
// every node, and one that joins afterwards, ends with every change written.
@Suite(.enabled(if: PrivateCluster.enabled))
struct HubRestoreTests {
    @Test func nodesRepairAfterTheDatabaseComesBackFromAnOlderCopy() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let cluster = try await PrivateCluster.started()
        defer { cluster.stop() }
        let (stream, directory, tokenFile) = try await HubCommandTests.scratchStream(
            url: cluster.url, label: "restore")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hub = try await HubCommandTests.startHub(executable, url: cluster.url)
        defer {
            kill(hub.0.processIdentifier, SIGKILL)
            hub.0.waitUntilExit()
        }

        let reference = CRDT<String, String, Value>(nodeId: 999)
        let writers = (1...3).map { CRDT<String, String, Value>(nodeId: UInt64($0)) }
        func node(_ id: Int) -> String { directory + "/node\(id)" }
        for id in 1...3 {
            #expect(
                try await LogbookExecutable.run(["init", node(id), "--node", "\(id)"]).status == 0)
        }
        func write(_ id: Int, _ record: String) async throws {
            let changes = writers[id - 1].insertOrUpdate(record, fields: [("v", .int(1))])
            reference.mergeChanges(changes)
            let file = node(id) + ".jsonl"
            let lines = try changes.map {
                String(decoding: try JSONEncoder().encode($0), as: UTF8.self)
            }
            try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try await LogbookExecutable.run(["append", node(id), file]).status == 0)
        }
        func sync(_ id: Int) async throws -> String {
            let result = try await LogbookExecutable.run(
                ["sync", node(id), "--hub", hub.1, "--stream", stream, "--token-file", tokenFile],
                timeout: .seconds(120))
            #expect(result.status == 0, "node \(id): \(result.standardError)")
            return result.standardOutput
        }
        func server(_ arguments: [String]) async throws -> Int32 {
            try await onOwnThread { cluster.pgCtl(arguments) }
        }
        let copy = cluster.directory + "/copy"

        try await write(1, "kept")
        _ = try await sync(1)
        #expect(try await server(["-m", "fast", "-w", "stop"]) == 0)
        #expect(PrivateCluster.run("/bin/cp", ["-a", cluster.dataDirectory, copy]) == 0)
        #expect(try await onOwnThread { cluster.start() } == 0)
        for index in 0..<3 { try await write(1, "lost\(index)") }
        _ = try await sync(1)

        // The copy comes back; node 2 then merges past node 1's pull position.
        #expect(try await server(["-m", "fast", "-w", "stop"]) == 0)
        #expect(PrivateCluster.run("/bin/rm", ["-rf", cluster.dataDirectory]) == 0)
        #expect(PrivateCluster.run("/bin/mv", [copy, cluster.dataDirectory]) == 0)
        #expect(try await onOwnThread { cluster.start() } == 0)
        for index in 0..<6 {
            try await write(2, "other\(index)")
            // The hub's pool reconnects while the first syncs are refused (503).
            for attempt in 0..<50 {
                let result = try await LogbookExecutable.run(
                    [
                        "sync", node(2), "--hub", hub.1, "--stream", stream, "--token-file",
                        tokenFile,
                    ],
                    timeout: .seconds(120))
                if result.status == 0 { break }
                try #require(attempt < 49, "node 2 cannot sync: \(result.standardError)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        let repair = try await sync(1)
        #expect(repair.contains("push restarted"), "\(repair)")
        _ = try await sync(2)
        let expected = "digest: \(StateDigest(of: reference))"
        for id in [1, 2, 3] {
            let output = try await sync(id)
            #expect(output.contains(expected), "node \(id): \(output)")
        }
    }
}
