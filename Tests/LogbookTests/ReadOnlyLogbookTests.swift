import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// The engine opened read-only replays to the same state as a writer, on a read-only mount,
// without a byte changed; it refuses writes and maintenance with `.readOnly` (a dry run
// reads only and is allowed); readers share the directory lock, a writer excludes them.
@Suite struct ReadOnlyLogbookTests {
    private func readOnly(_ fileSystem: any FileSystem = PosixFileSystem()) -> LogbookOptions {
        var options = smallLogOptions(.buffered, fileSystem: fileSystem)
        options.readOnly = true
        return options
    }

    @Test func aReadOnlyReplicaReplaysTheStateAndChangesNothing() async throws {
        let fileSystem = SimulatedFileSystem()
        let writer = try Logbook.open(
            directory: "/node", nodeId: 3,
            options: smallLogOptions(.buffered, fileSystem: fileSystem))
        var workload = Workload(seed: 11)
        for _ in 0..<300 { _ = try await workload.step(writer) }
        let digest = writer.stateDigest()
        try writer.close()
        let before = try fileSystem.contentsOfDirectory("/node").map {
            ($0, fileSystem.contents(of: "/node/" + $0))
        }
        fileSystem.isReadOnlyMount = true

        let reader = try Logbook.open(directory: "/node", options: readOnly(fileSystem))
        #expect(reader.stateDigest() == digest)
        do {
            try await reader.insertOrUpdate("e/x", fields: [("n", 1)])
            Issue.record("a read-only replica took a write")
        } catch {
            #expect(error.code == .readOnly)
        }
        var dryRun = CompactionOptions()
        dryRun.dryRun = true
        _ = try reader.compact(dryRun)
        #expect(throws: LogbookError.self) { try reader.compact() }
        try reader.close()
        let after = try fileSystem.contentsOfDirectory("/node").map {
            ($0, fileSystem.contents(of: "/node/" + $0))
        }
        #expect(after.map(\.0) == before.map(\.0))
        #expect(after.map(\.1) == before.map(\.1))
    }

    @Test func readersAndOneWriterShareTheDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Logbook.open(directory: directory.path, nodeId: 1).close()
        let first = try Logbook.open(directory: directory.path, options: readOnly())
        let second = try Logbook.open(directory: directory.path, options: readOnly())
        let writer = try Logbook.open(directory: directory.path)
        #expect(throws: LogbookError.self) { try Logbook.open(directory: directory.path) }
        try await writer.insertOrUpdate("a", fields: [("n", 1)])
        let third = try Logbook.open(directory: directory.path, options: readOnly())
        #expect(third.getRecord("a")?.fields["n"] == 1, "what the writer acknowledged")
        #expect(first.getRecord("a") == nil, "a reader sees the log as it opened it")
        try first.close()
        try second.close()
        try third.close()
        try writer.close()
    }

    @Test func aReadOnlyOpenCreatesNoDirectory() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = readOnly()
        options.readOnly = true
        #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path + "/new", nodeId: 1, options: options)
        }
        #expect(!PosixFileSystem().exists(directory.path + "/new"))
    }
}
