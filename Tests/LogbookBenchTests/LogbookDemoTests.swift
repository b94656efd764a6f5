import Foundation
import LogbookBench
import LogbookTesting
import Testing

// The demo as a library: it tells its story through the closure it is given, and it only
// ever replaces directories that hold a Logbook.
@Suite struct LogbookDemoTests {
    @Test func theDemoNarratesEveryPartAndConverges() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var lines: [String] = []
        try await LogbookDemo(directory: directory.path + "/demo", records: 300, changes: 3000)
            .run { lines.append($0) }
        let story = lines.joined(separator: "\n")
        #expect(story.components(separatedBy: "converged: yes").count - 1 == 3, "\(story)")
        #expect(story.contains("same as before closing"))
        // The close wrote a snapshot; the demo opens from it, then replays the whole log.
        #expect(story.contains("reopened from the snapshot the close wrote"), "\(story)")
        #expect(story.contains("reopened without it: replayed 3000 changes"), "\(story)")
        // A node's first pull takes the other's state, and the story says why no batches came.
        #expect(story.contains("as its state: a first pull from a peer starts from its state"))
        #expect(story.contains("digest unchanged"))
    }

    @Test func aDirectoryThatIsNotALogbookIsLeftAlone() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let precious = directory.path + "/demo"
        try FileManager.default.createDirectory(
            atPath: precious, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: precious + "/notes.txt"))
        await #expect(throws: DemoError.self) {
            try await LogbookDemo(directory: precious, records: 10, changes: 100).run { _ in }
        }
        #expect(
            FileManager.default.contents(atPath: precious + "/notes.txt") == Data("keep me".utf8))
    }
}
