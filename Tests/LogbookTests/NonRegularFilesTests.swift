import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A directory the log does not trust may hold a symbolic link or a FIFO where a segment or
// the lock file should be. Opening refuses it by name, writes nothing through a link (the
// link's target outside the directory keeps every byte) and never blocks on a FIFO.
@Suite struct NonRegularFilesTests {
    private static let victimText = Data(String(repeating: "precious bytes\n", count: 8).utf8)

    /// A Logbook with one change, closed; returns its directory and its first segment.
    private func written() async throws -> (TemporaryDirectory, String) {
        let directory = TemporaryDirectory()
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        try await logbook.merge([
            Change(
                recordId: "e/a", colName: "n", value: .int(1), colVersion: 1, dbVersion: 1,
                nodeId: 1, localDbVersion: 1)
        ])
        try logbook.close()
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".seg") }.sorted().first)
        return (directory, directory.path + "/" + segment)
    }

    /// Replaces `path` with a link to a new file outside the directory; returns that file.
    private func linkToVictim(_ path: String, in directory: TemporaryDirectory) throws -> String {
        let victim = directory.path + "-victim"
        try Self.victimText.write(to: URL(fileURLWithPath: victim))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        return victim
    }

    @Test func aSegmentLinkedElsewhereIsRefusedAndItsTargetKeepsEveryByte() async throws {
        let (directory, segment) = try await written()
        let victim = try linkToVictim(segment, in: directory)
        defer {
            directory.remove()
            try? FileManager.default.removeItem(atPath: victim)
        }
        for readOnly in [false, true] {
            var options = LogbookOptions()
            options.readOnly = readOnly
            let refusal = #expect(throws: LogbookError.self) {
                try Logbook.open(directory: directory.path, options: options)
            }
            #expect("\(refusal.map(String.init(describing:)) ?? "")".contains("is a symbolic link"))
            #expect(FileManager.default.contents(atPath: victim) == Self.victimText)
        }
    }

    @Test func aLockFileLinkedElsewhereIsRefusedAndItsTargetKeepsEveryByte() async throws {
        let (directory, _) = try await written()
        let victim = try linkToVictim(directory.path + "/lock", in: directory)
        defer {
            directory.remove()
            try? FileManager.default.removeItem(atPath: victim)
        }
        #expect(throws: LogbookError.self) { try Logbook.open(directory: directory.path) }
        #expect(FileManager.default.contents(atPath: victim) == Self.victimText)
    }

    @Test func aFIFONamedLikeASegmentIsRefusedWithoutBlocking() async throws {
        let (directory, segment) = try await written()
        defer { directory.remove() }
        let fifo = directory.path + "/00000000000000009999.seg"
        #expect(mkfifo(fifo, 0o644) == 0)
        // Without O_NONBLOCK the open would wait for a writer that never comes.
        let refusal = #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path)
        }
        #expect("\(refusal.map(String.init(describing:)) ?? "")".contains("not a regular file"))
        // The directory opens again once the FIFO is gone.
        try FileManager.default.removeItem(atPath: fifo)
        let reopened = try Logbook.open(directory: directory.path)
        #expect(reopened.getRecord("e/a")?.field("n") == .int(1))
        try reopened.close()
        #expect(FileManager.default.fileExists(atPath: segment))
    }
}
